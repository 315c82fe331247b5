// The host's interrupt handling for the simulated queues: MSI-X messages arriving at the
// local APIC, the hard IRQ with the kernel's lazy disable/mask/replay, softirq work
// (hrtimer expiries running a policy's on_timer, a drive policy's monitor), the queues'
// IRQ threads with their sleeps, and the vector and timer operations a policy's env
// performs. The seams for further host costs: message arrival (on_msix, deliver_irq),
// softirq raising (raise_softirq) and the per-context segment functions.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/completion_delivery.h"
#include "models/cpu_core.h"
#include "models/cq_reaper.h"
#include "models/device.h"
#include "models/host_drive.h"
#include "models/host_queue.h"
#include "models/run_observer.h"
#include "models/scenario.h"
#include "models/softirq_work.h"
#include "models/topology.h"
#include "sim/event_queue.h"

namespace nvmesim {

class HostInterrupts {
 public:
  // The machine whose interrupts it handles; the containers are filled before the run.
  struct Machine {
    sim::EventQueue* eq;
    const Scenario* scenario;
    const Topology* topology;
    std::vector<std::unique_ptr<Core>>* cores;
    std::vector<std::unique_ptr<Device>>* devices;
    std::vector<std::unique_ptr<HostQueue>>* queues;
    std::vector<HostDrive>* drives;
    std::vector<CoreSoftirq>* softirqs;
    CompletionDelivery* delivery;
    CqReaper* reaper;
    RunObserver* observer;
  };
  explicit HostInterrupts(Machine m) : m_(m) {}

  // Where the devices send their MSI-X messages.
  MsixSink msix_sink() { return MsixSink{this, &HostInterrupts::on_msix}; }
  // Starts the drive policies' monitors (at time zero).
  void start();

  // One segment of each interrupt context: its cost as it begins, and whether the task
  // stays runnable when it ends.
  Duration begin_hardirq(HostQueue& q);
  bool end_hardirq(HostQueue& q);
  Duration begin_softirq(uint32_t core);
  bool end_softirq(uint32_t core);
  Duration begin_thread(HostQueue& q);
  bool end_thread(HostQueue& q);
  // One pass of the application's polling (io_uring IOPOLL) over a queue; its cost.
  Duration app_poll(HostQueue& q);

  // What a policy's env does to the vector, thread and timer; each returns its CPU cost.
  Duration mask_vector(HostQueue& q);
  Duration unmask_vector(HostQueue& q);
  Duration wake_thread(HostQueue& q);
  Duration arm_timer(HostQueue& q, Duration d);
  void cancel_timer(HostQueue& q) { q.timer.cancel(); }

  Time now() const { return m_.eq->now(); }
  const HostProfile& host() const { return m_.scenario->host; }
  const Topology& topology() const { return *m_.topology; }
  HostQueue& queue(uint32_t gq) { return *(*m_.queues)[gq]; }
  Device& device(uint32_t d) { return *(*m_.devices)[d]; }
  HostDrive& drive(uint32_t d) { return (*m_.drives)[d]; }
  CqReaper& reaper() { return *m_.reaper; }
  RunObserver& observer() { return *m_.observer; }

 private:
  static void on_msix(void* self, uint32_t drive, uint32_t vector);
  static void on_irq_arrival(void* self, uint64_t queue);
  static void on_timer(void* self, uint64_t token);
  static void on_thread_wake(void* self, uint64_t token);
  static void on_monitor(void* self, uint64_t drive);
  // The message for queue `q`'s vector reaches its core `after` from now.
  void deliver_irq(const HostQueue& q, Duration after);
  void raise_softirq(uint32_t core, SoftirqItem item);
  Core& core(uint32_t c) { return *(*m_.cores)[c]; }

  Machine m_;
};

}  // namespace nvmesim
