// What both replay readers resolve a recorded command against: the scenario's drives,
// queues and job clones (its topology), and the trace being built, with the messages
// that name FILE:LINE and the column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/input/input_error.h"
#include "app/input/input_limits.h"
#include "app/replay/replay_load.h"
#include "models/host/topology.h"
#include "models/workload/replay_trace.h"
#include "vocab/scenario.h"

namespace nvmesim::replay {

// Times within the longest run the simulator accepts (warm-up plus window).
inline constexpr int64_t kMaxTimeNs = 2 * limits::kMaxRunDuration.count_ns();

class ReplayTarget {
 public:
  ReplayTarget(const ReplayLoadOptions& o, const Scenario& sc);

  const ReplayLoadOptions& options() const { return o_; }
  const Scenario& scenario() const { return sc_; }
  const Topology& topology() const { return topo_; }
  ReplayTrace& trace() { return trace_; }
  const ReplayTrace& trace() const { return trace_; }

  InputError at(uint32_t line, const std::string& msg) const;
  InputError at(uint32_t line, std::string_view column, const std::string& msg) const;

  // The drive a trace row without a drive of its own maps to: the only drive, or --replay-drive.
  std::optional<uint32_t> named_drive() const;
  // Resolves the command's drive, global queue and submitting clone.
  std::optional<InputError> place(ReplayCommand& c, uint32_t queue, bool simulator_row,
                                  std::optional<uint32_t> drive_by_name) const;
  // Where the device times of --replay-service come from ("mixed" when rows differ).
  void note_service_source(const char* s);
  // Appends the command, or refuses it past the replay's cap (limits::kMaxReplayCommands).
  std::optional<InputError> add(const ReplayCommand& c, uint32_t line);

 private:
  const ReplayLoadOptions& o_;
  const Scenario& sc_;
  Topology topo_;
  std::vector<uint64_t> pool_first_;
  uint64_t pool_end_ = 0;
  ReplayTrace trace_;
};

}  // namespace nvmesim::replay
