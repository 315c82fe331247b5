// What a run shows of itself, apart from the models that produce it: the measured
// window's snapshots (counters at its start and end), the Perfetto trace (core slices,
// queue counters and modes) and the per-command trace. Models report events to it; it
// reads the machine's state to label and snapshot, and changes nothing the run depends on.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/system/command_trace_log.h"
#include "models/host/cpu_core.h"
#include "models/device/device.h"
#include "models/host/host_queue.h"
#include "models/workload/job.h"
#include "models/workload/replay_trace.h"
#include "models/workload/request.h"
#include "models/host/softirq_work.h"
#include "policies/api/counters.h"
#include "sim/trace.h"
#include "vocab/context.h"
#include "vocab/scenario.h"

namespace nvmesim {

// Per-core time in each context over the measured window.
struct CoreTimes {
  std::array<Duration, kContexts> busy{};
};

class RunObserver {
 public:
  // The machine it observes; the containers are filled before the run starts.
  struct Machine {
    const Scenario* scenario;
    const std::vector<std::unique_ptr<Core>>* cores;  // flushed (not changed) at window edges
    const std::vector<std::unique_ptr<Device>>* devices;
    const std::vector<std::unique_ptr<HostQueue>>* queues;
    const std::vector<Job>* jobs;
    const std::vector<Request>* requests;
    const std::vector<CoreSoftirq>* softirqs;
  };
  explicit RunObserver(Machine m) : m_(m) {}

  // ---- the measured window
  void set_window(Time start, Time end) {
    window_start_ = start;
    window_end_ = end;
  }
  Time window_start() const { return window_start_; }
  Time window_end() const { return window_end_; }
  void start_window();
  void finish_window();
  // Whether something that happens at `t` counts in the results.
  bool counts(Time t) const { return measuring_ && t <= window_end_; }
  // Counters over the window (end minus start of window).
  policy::QueueCounters queue_counters(uint32_t q) const;
  uint64_t queue_lazy_masked(uint32_t q) const;
  DeviceStats device_stats(uint32_t d) const;
  CoreTimes core_times(uint32_t c) const;

  // ---- the Perfetto trace (null: off)
  void enable_trace(sim::TraceRecorder* trace);
  bool tracing() const { return trace_ != nullptr; }
  void queue_counters_changed(const HostQueue& q, Time now);
  // The queue leaves mode `from` at `now` (its slice on the queue's mode track ends).
  void queue_mode_ended(const HostQueue& q, std::string_view from, Time now);
  // Closes every queue's last mode slice at the end of the run.
  void finish_trace(Time now);

  // ---- the per-command trace (null: off)
  void enable_command_trace(CommandTraceLog* log) { cmd_trace_ = log; }
  bool command_tracing() const { return cmd_trace_ != nullptr; }
  // Whether the reapers report each CQE (command trace or replay).
  bool watches_commands() const { return cmd_trace_ != nullptr || replayed_ != nullptr; }
  // A reaper in context `ctx` consumed command `cid`'s CQE at `seen`, in a segment that
  // started at `now`.
  void command_reaped(const HostQueue& q, uint32_t cid, Time seen, Context ctx, Time now);
  // At the run's end: the commands submitted in the window and never seen become
  // `inflight` rows (those seen after the window already did, in command_reaped).
  void finish_command_trace();

  // ---- the replay's per-command times (null: not a replay); indexed like the trace's commands
  void enable_replay(std::vector<ReplayedTimes>* times) { replayed_ = times; }
  // The requests' times (RequestTimes, by request id) that the command trace and the
  // replay read, once watches_commands() (System::run). Before the run.
  void read_request_times(const RequestTimes* times) { times_ = times; }
  // The application reaped request `rid` (a replayed command) at `now`.
  void replayed_command_reaped(uint32_t rid, Time now);
  void hard_irq(const HostQueue& q, Time now, uint32_t cqes, bool held);
  // A policy's mode change on a queue, or on the whole drive (queue == nullptr).
  void mode_change(const HostQueue* q, Time now, std::string_view from, std::string_view to,
                   const std::string& reason);

 private:
  static void on_ran(void* self, const Task& t, Time start, Time end);
  std::string queue_label(const HostQueue& q) const;
  CoreTimes busy_now(uint32_t c) const;

  Machine m_;
  Time window_start_;
  Time window_end_;
  bool measuring_ = false;
  std::vector<policy::QueueCounters> counters_at_start_;
  std::vector<uint64_t> lazy_masked_at_start_;
  std::vector<DeviceStats> device_at_start_;
  std::vector<CoreTimes> core_at_start_;
  std::vector<CoreTimes> core_at_end_;

  sim::TraceRecorder* trace_ = nullptr;
  std::vector<Time> mode_since_;
  CommandTraceLog* cmd_trace_ = nullptr;
  std::vector<Time> last_seen_;  // per request id: its latest CQE seen (command trace only)
  void add_inflight(uint32_t cid, const Request& r);
  std::vector<ReplayedTimes>* replayed_ = nullptr;
  const RequestTimes* times_ = nullptr;  // read_request_times
};

}  // namespace nvmesim
