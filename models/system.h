// The simulated machine of one scenario: cores, drives, queue pairs, jobs, and the event
// queue that drives them. Owns everything it uses (no globals), so any number of
// Systems run side by side in one process.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "models/command_trace_log.h"
#include "models/cpu_core.h"
#include "models/device.h"
#include "models/host_queue.h"
#include "models/job.h"
#include "models/request.h"
#include "models/scenario.h"
#include "sim/event_queue.h"
#include "sim/trace.h"

namespace nvmesim {

class SimQueueEnv;
class SimDriveEnv;

// Per-core time in each context over the measured window.
struct CoreTimes {
  std::array<Duration, kLevels> busy{};
};

class System {
 public:
  explicit System(const Scenario& scenario);
  System(const System&) = delete;
  System& operator=(const System&) = delete;
  ~System();

  // Runs warm-up and the measured window. `progress` (may be empty) is called now and
  // then with the fraction of simulated time done.
  void run(const std::function<void(double)>& progress = {});
  // Records a Perfetto trace of the run into `trace` (call before run()).
  void enable_trace(sim::TraceRecorder* trace);
  // Records the per-command trace (docs/trace-format.md) into `log` (call before run()).
  void enable_command_trace(CommandTraceLog* log) { cmd_trace_ = log; }

  const Scenario& scenario() const { return sc_; }
  Duration window() const { return sc_.duration; }
  uint64_t events() const { return eq_.dispatched(); }

  const std::vector<Job>& jobs() const { return jobs_; }
  const std::vector<std::unique_ptr<HostQueue>>& queues() const { return queues_; }
  const std::vector<std::unique_ptr<Device>>& devices() const { return devices_; }
  // Counters over the window (end minus start of window).
  policy::QueueCounters queue_counters(uint32_t q) const;
  uint64_t queue_lazy_masked(uint32_t q) const { return lazy_masked_[q] - lazy_masked_at_start_[q]; }
  DeviceStats device_stats(uint32_t d) const;
  CoreTimes core_times(uint32_t c) const;
  uint32_t core_count() const { return static_cast<uint32_t>(cores_.size()); }
  // Drive-level mode timeline (drive policies such as coalesce_adaptive); empty otherwise.
  const std::vector<ModeChange>& drive_timeline(uint32_t d) const { return drive_timeline_[d]; }
  std::string drive_mode(uint32_t d) const;

 private:
  friend class SimQueueEnv;
  friend class SimDriveEnv;

  void build();
  void start_window();
  void finish_window();

  static Duration begin_segment(void* self, Task& t);
  static bool end_segment(void* self, Task& t);
  static void on_msix(void* self, uint32_t drive, uint32_t vector);
  static void on_irq_arrival(void* self, uint64_t queue);
  static void on_timer(void* self, uint64_t arg);
  static void on_thread_wake(void* self, uint64_t arg);
  static void on_arrival(void* self, uint64_t job);
  static void on_window_start(void* self, uint64_t);
  static void on_monitor(void* self, uint64_t drive);
  static void on_ran(void* self, const Task& t, Time start, Time end);
  void trace_queue_counters(const HostQueue& q);
  void trace_mode(HostQueue& q, std::string_view mode);
  void trace_command(const HostQueue& q, uint32_t cid, Time seen, Level ctx);
  std::string queue_label(const HostQueue& q) const;
  // Keeps each drive's total driver inflight and its time integral (for drive policies).
  void drive_inflight_add(uint32_t drive, int64_t delta);

  Duration begin_app(Job& j);
  bool end_app(Job& j);
  Duration begin_hardirq(HostQueue& q);
  bool end_hardirq(HostQueue& q);
  Duration begin_softirq(uint32_t core);
  bool end_softirq(uint32_t core);
  Duration begin_thread(HostQueue& q);
  bool end_thread(HostQueue& q);

  // Hands a queue's drained CQEs to their jobs; wakes jobs whose wait is satisfied.
  void deliver(HostQueue& q);
  // Cost of posting and waking for the CQEs just drained (charged to the drainer).
  Duration delivery_cost(const HostQueue& q, std::size_t first) const;
  void wake_job(Job& j);

  Scenario sc_;
  sim::EventQueue eq_;
  std::vector<Request> requests_;
  std::vector<std::unique_ptr<Core>> cores_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<std::unique_ptr<HostQueue>> queues_;
  std::vector<std::vector<uint32_t>> drive_queues_;  // drive -> global queue ids
  std::vector<std::vector<uint32_t>> core_queue_;    // drive -> core -> global queue id
  std::vector<Job> jobs_;
  std::vector<Task> softirq_tasks_;
  std::vector<std::deque<uint32_t>> softirq_work_;   // per core: queues whose timer fired
  std::vector<uint64_t> lazy_masked_;
  static constexpr uint32_t kMonitorWork = 0x80000000u;  // softirq item: drive monitor, not a queue timer

  std::vector<std::optional<policy::AnyDrivePolicy>> drive_policy_;
  std::vector<std::vector<ModeChange>> drive_timeline_;
  std::vector<int64_t> drive_inflight_;
  std::vector<double> drive_integral_;
  std::vector<Time> drive_integral_at_;

  Time window_start_;
  Time window_end_;
  bool measuring_ = false;
  std::vector<policy::QueueCounters> counters_at_start_;
  std::vector<uint64_t> lazy_masked_at_start_;
  std::vector<DeviceStats> device_at_start_;
  std::vector<CoreTimes> core_at_start_;
  std::vector<CoreTimes> core_at_end_;
  sim::TraceRecorder* trace_ = nullptr;
  CommandTraceLog* cmd_trace_ = nullptr;
  std::vector<Time> mode_since_;
};

}  // namespace nvmesim
