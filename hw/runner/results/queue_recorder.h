// What a run keeps of one queue for its results and trace: completion counts, the
// latency histogram (submit to CQE consumed) of the measured window, and the trace rows
// (commands, interrupts, mode changes), each kind capped at `trace_limit` rows, later
// ones counted only. Every call with the queue mutex held.
//
// The command rows' window runs from the start until the first completion over the cap,
// or the end of the run (close_trace). The commands outstanding when it closes become
// `inflight` rows, as the simulator writes them (docs/trace-format.md), so a replay of
// the trace has every command the traced ones shared the queue with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hw/runner/io/command_table.h"
#include "vocab/command_trace.h"
#include "vocab/histogram.h"
#include "vocab/time.h"

namespace nvmesim::hw {

class QueueRecorder {
 public:
  QueueRecorder(uint16_t qid, Time measure_from, Time measure_to, size_t trace_limit);

  // Completions of commands submitted before `from` are warm-up.
  void set_measure_window(Time from, Time to) {
    measure_from_ = from;
    measure_to_ = to;
  }

  // Command `cid` (request `r`) completed with status field `status`, its CQE consumed
  // at `seen` by context `by` (for an interrupt's handler, `irq_at` is the interrupt).
  // `still_outstanding` is the queue's table after `cid` left it: if this completion is
  // the first over the cap, the window closes at `seen` with it and them in flight.
  void completion(uint16_t cid, const OutstandingCommand& r, uint16_t status, Time seen, Time irq_at,
                  trace::Context by, const CommandTable& still_outstanding);
  // The run ends at `at` with `outstanding` not completed (aborted by the teardown's
  // reset): they close the window as inflight rows. No-op once the window is closed.
  void close_trace(Time at, const CommandTable& outstanding);
  void stray_cqe() { ++stray_; }
  void interrupt(Time at, uint32_t cqes);
  void held_interrupt(Time at);  // arrived while the vector was disabled
  void mode_change(Time at, std::string_view from, std::string_view to, std::string reason);

  uint64_t completed() const { return completed_; }
  uint64_t measured_completions() const { return measured_; }
  uint64_t errors() const { return errors_; }
  uint64_t stray_cqes() const { return stray_; }
  uint64_t trace_dropped() const { return trace_dropped_; }
  uint64_t interrupts_held() const { return held_; }
  const sim::Histogram& latency() const { return latency_; }  // of the measured completions
  const std::vector<trace::CommandRecord>& commands() const { return commands_; }
  const std::vector<trace::IrqRecord>& irqs() const { return irqs_; }
  const std::vector<trace::ModeRecord>& modes() const { return modes_; }
  const std::vector<trace::InflightRecord>& inflight() const { return inflight_; }  // by cid

 private:
  uint16_t qid_;
  Time measure_from_, measure_to_;
  size_t trace_limit_;
  uint64_t completed_ = 0, measured_ = 0, errors_ = 0, stray_ = 0, trace_dropped_ = 0, held_ = 0;
  sim::Histogram latency_;
  std::vector<trace::CommandRecord> commands_;
  std::vector<trace::IrqRecord> irqs_;
  std::vector<trace::ModeRecord> modes_;
  std::vector<trace::InflightRecord> inflight_;
  bool trace_closed_ = false;

  void add_inflight(Time at, uint16_t cid, const OutstandingCommand& r);
};

}  // namespace nvmesim::hw
