// The application: fio's job loop for each job clone. A clone submits while there is
// room (in batches of iodepth_batch_submit), then waits for at least
// iodepth_batch_complete_min completions and reaps up to _max; an open-loop clone
// (rate_iops) issues only what has arrived. Its CPU segments run in the app context of
// its core; waiting is blocking in the kernel or, for polled queues, polling them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/host/completion_delivery.h"
#include "models/host/cpu_core.h"
#include "models/device/device.h"
#include "models/host/host_drive.h"
#include "models/host/host_interrupts.h"
#include "models/host/host_queue.h"
#include "models/workload/job.h"
#include "models/workload/replay_trace.h"
#include "models/workload/request.h"
#include "models/system/run_observer.h"
#include "models/host/topology.h"
#include "sim/event_queue.h"
#include "vocab/scenario.h"

namespace nvmesim {

class JobModel {
 public:
  // The machine the jobs run on; the containers are filled before the run.
  struct Machine {
    sim::EventQueue* eq;
    const Scenario* scenario;
    std::vector<std::unique_ptr<Core>>* cores;
    std::vector<std::unique_ptr<Device>>* devices;
    std::vector<std::unique_ptr<HostQueue>>* queues;
    std::vector<HostDrive>* drives;
    std::vector<Job>* jobs;
    std::vector<Request>* requests;
    HostInterrupts* interrupts;  // for its polling pass
    CompletionDelivery* delivery;
    RunObserver* observer;
    const ReplayTrace* replay;  // null: the jobs' own loop; else the trace's commands
  };
  explicit JobModel(Machine m) : m_(m) {}

  // Creates the job clones of the topology, each with its share of the request pool.
  void build(const Topology& topology, bool app_polls);
  // Closed-loop clones become runnable; open-loop clones wait for their first arrival
  // (a replay: their first command's recorded submit time). Only the clones listed (by
  // index, ascending) start; the others stay idle (a partition's run, models/system/partition.h).
  void start(std::span<const uint32_t> jobs);

  Duration begin(Job& j);
  bool end(Job& j);
  // Folding of empty polling passes (on by default, models/workload/empty_poll_fold.h): off runs
  // every pass as its own segment, as a reference for tests.
  void set_fold_empty_polls(bool on) { fold_empty_polls_ = on; }
  // Where each request's doorbell time and replayed command go (RequestTimes, by request
  // id), which only a command trace and a replay read; null: nowhere. Before the run.
  void record_request_times(RequestTimes* times) { times_ = times; }

 private:
  static void on_arrival(void* self, uint64_t job);
  static void on_replay_arrival(void* self, uint64_t job);
  void arrived(Job& j);
  uint32_t submit(Job& j, uint32_t want, Duration& cost);
  Duration begin_enter_loop(Job& j, Duration cost);
  void ring_doorbells(Job& j);
  void reap(Job& j);
  Duration run_task_work(Job& j);
  void mark_folding();
  void mark_submitters();
  Duration fold_empty_passes(Job& j, Duration pass, Duration first);

  Machine m_;
  bool fold_empty_polls_ = true;
  RequestTimes* times_ = nullptr;  // record_request_times
};

}  // namespace nvmesim
