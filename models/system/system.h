// The simulated machine of one scenario: cores, drives, queue pairs, jobs, and the event
// queue that drives them. Owns everything it uses (no globals), so any number of
// Systems run side by side in one process. The behaviour lives in the models it wires
// together -- the topology (where work runs), the job model (the application), the host
// interrupt contexts and the kernel services under them, the CQ reaper and completion
// delivery, and the run observer (window, traces); the System builds the machine, runs
// it, and switches each core's segments to the model that owns the running task.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/system/command_trace_log.h"
#include "models/host/completion_delivery.h"
#include "models/host/cpu_core.h"
#include "models/host/cq_reaper.h"
#include "models/device/device.h"
#include "models/host/host_drive.h"
#include "models/host/host_interrupts.h"
#include "models/host/host_kernel.h"
#include "models/host/host_queue.h"
#include "models/workload/job.h"
#include "models/workload/job_model.h"
#include "models/system/partition.h"
#include "models/workload/replay_trace.h"
#include "models/device/replayed_service.h"
#include "models/workload/request.h"
#include "models/system/run_observer.h"
#include "models/host/softirq_work.h"
#include "models/host/topology.h"
#include "models/system/zero_pages.h"
#include "sim/event_queue.h"
#include "sim/trace.h"
#include "vocab/scenario.h"

namespace nvmesim {

class System {
 public:
  // `replay` (may be null; must outlive the System): drive the run from a recorded
  // trace's commands instead of the jobs' own loop (models/workload/replay_trace.h).
  explicit System(const Scenario& scenario, const ReplayTrace* replay = nullptr);
  System(const System&) = delete;
  System& operator=(const System&) = delete;
  ~System();

  // Simulates only `part`'s jobs and drive monitors (call before run()); the rest of the
  // machine is built, keeping every entity's global id, but stays idle. Default: all.
  void limit_to(const Partition& part);
  // Runs warm-up and the measured window. `progress` (may be empty) is called now and
  // then with the fraction of simulated time done.
  void run(const std::function<void(double)>& progress = {});
  // Polling passes certain to find nothing fold into one segment (the default; see
  // models/workload/empty_poll_fold.h). Off: one segment per pass, as a reference for tests.
  void fold_empty_polls(bool on) { job_model_.set_fold_empty_polls(on); }
  // Mode changes kept per queue or drive (HostKernel::timeline_cap). Before the run.
  void cap_timelines(std::size_t n) { kernel_.set_timeline_cap(n); }
  // Records a Perfetto trace of the run into `trace` (call before run()).
  void enable_trace(sim::TraceRecorder* trace) { observer_.enable_trace(trace); }
  // Records the per-command trace (docs/trace-format.md) into `log` (call before run()).
  void enable_command_trace(CommandTraceLog* log) { observer_.enable_command_trace(log); }

  const Scenario& scenario() const { return sc_; }
  const Topology& topology() const { return topology_; }
  Duration window() const { return sc_.duration; }
  uint64_t events() const { return eq_.dispatched(); }
  // A replay's simulated times per trace command (empty when not replaying).
  const std::vector<ReplayedTimes>& replayed() const { return replayed_; }

  const std::vector<Job>& jobs() const { return jobs_; }
  const std::vector<std::unique_ptr<HostQueue>>& queues() const { return queues_; }
  const std::vector<std::unique_ptr<Device>>& devices() const { return devices_; }
  // Counters over the window (end minus start of window).
  policy::QueueCounters queue_counters(uint32_t q) const { return observer_.queue_counters(q); }
  uint64_t queue_lazy_masked(uint32_t q) const { return observer_.queue_lazy_masked(q); }
  DeviceStats device_stats(uint32_t d) const { return observer_.device_stats(d); }
  CoreTimes core_times(uint32_t c) const { return observer_.core_times(c); }
  uint32_t core_count() const { return static_cast<uint32_t>(cores_.size()); }
  // A core's softirq state (pending work, ksoftirqd, completion IPIs), for tests.
  const CoreSoftirq& softirq(uint32_t c) const { return softirqs_[c]; }
  // Drive-level mode timeline (drive policies such as coalesce_adaptive); empty otherwise.
  const std::vector<ModeChange>& drive_timeline(uint32_t d) const { return drives_[d].timeline; }
  uint64_t drive_timeline_dropped(uint32_t d) const { return drives_[d].timeline_dropped; }
  std::string drive_mode(uint32_t d) const;
  uint64_t drive_decisions(uint32_t d) const;  // a drive policy's evaluated cycles so far

 private:
  void build();
  void build_drive(uint32_t d, const policy::PolicyInfo& info, const policy::ParamMap& params);
  static void on_window_start(void* self, uint64_t);
  // The segment switch: each core asks the model that owns its running task.
  static Duration begin_segment(void* self, Task& t);
  static bool end_segment(void* self, Task& t);

  // The machine, in construction order (the models refer to what comes before them).
  Scenario sc_;
  Topology topology_;
  sim::EventQueue eq_;
  std::vector<Request> requests_;  // the command id is the index; never moves once built
  std::vector<RequestTimes> request_times_;  // indexed as requests_, when watched (run)
  std::vector<std::unique_ptr<Core>> cores_;
  std::vector<CoreSoftirq> softirqs_;  // per core
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<ZeroPages> rings_;  // per drive: its queues' SQ and CQ rings (QueueMemory)
  std::vector<std::unique_ptr<HostQueue>> queues_;  // global queue ids, as the topology's
  std::vector<HostDrive> drives_;
  std::vector<Job> jobs_;
  const ReplayTrace* replay_;
  std::vector<ReplayedTimes> replayed_;
  std::unique_ptr<ReplayedService> replayed_service_;
  std::vector<uint32_t> started_jobs_, started_drives_;  // what run() starts

  RunObserver observer_;
  CompletionDelivery delivery_;
  CqReaper reaper_;
  HostKernel kernel_;
  HostInterrupts interrupts_;
  JobModel job_model_;
};

}  // namespace nvmesim
