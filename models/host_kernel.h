// The kernel services the simulated completion path relies on, without running any
// policy: MSI-X messages reaching a core's local APIC, the IRQ core's disable/enable with
// lazy masking and resend, hrtimers (a queue policy's timer, a drive policy's monitor,
// an IRQ thread's sleep), raising softirq work, and waking IRQ threads. Every event
// handler here only makes a task runnable; what the task then does is HostInterrupts'.
// The places where further host costs go: where a message lands (deliver_irq), what a
// timer expiry raises (on_timer, on_monitor) and where deferred work runs (raise_softirq).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/cpu_core.h"
#include "models/cq_reaper.h"
#include "models/device.h"
#include "models/host_drive.h"
#include "models/host_queue.h"
#include "models/msix_path.h"
#include "models/run_observer.h"
#include "models/softirq_work.h"
#include "models/timer_interrupt.h"
#include "models/topology.h"
#include "sim/event_queue.h"
#include "vocab/scenario.h"

namespace nvmesim {

class HostKernel {
 public:
  // The machine it serves; the containers are filled before the run.
  struct Machine {
    sim::EventQueue* eq;
    const Scenario* scenario;
    const Topology* topology;
    std::vector<std::unique_ptr<Core>>* cores;
    std::vector<std::unique_ptr<Device>>* devices;
    std::vector<std::unique_ptr<HostQueue>>* queues;
    std::vector<HostDrive>* drives;
    std::vector<CoreSoftirq>* softirqs;
    CqReaper* reaper;
    RunObserver* observer;
  };
  explicit HostKernel(Machine m);
  HostKernel(const HostKernel&) = delete;  // its events hold its address
  HostKernel& operator=(const HostKernel&) = delete;

  // One local timer interrupt per core (used when timer_expiry is "interrupt").
  void build_timer_interrupts(uint32_t cores);
  CoreTimerInterrupt& timer_interrupt(uint32_t core) { return timer_irqs_[core]; }
  // What a timer interrupt does for each expiry it serves: raise the softirq of a queue
  // timer or a monitor, or wake a sleeping IRQ thread.
  void run_expiry(const TimerExpiryItem& item);
  // An interrupt handler returned on `core`: its indirect cost is owed there.
  void interrupt_returned(uint32_t c) { core(c).add_pollution(host().irq_indirect); }
  // What runs on `core` now pays this much before its own work (idle exit, pollution...).
  Duration segment_overhead(uint32_t c) { return core(c).segment_overhead(); }

  // The path drive `drive`'s messages take in PCIe order with its other posted writes,
  // or null (no path, or an unordered one).
  MsixPath* ordered_path(uint32_t drive);
  // Where the devices send their MSI-X messages.
  MsixSink msix_sink() { return MsixSink{this, &HostKernel::on_msix}; }
  // Starts the drive policies' monitors (at time zero) of the drives listed (ascending).
  void start_monitors(std::span<const uint32_t> drives);
  // The next monitoring cycle of `drive`, `after` from now.
  void schedule_monitor(uint32_t drive, Duration after);

  // What a policy's env does to the vector, thread and timer; each returns its CPU cost.
  Duration mask_vector(HostQueue& q);
  Duration unmask_vector(HostQueue& q);
  Duration wake_thread(HostQueue& q);
  Duration arm_timer(HostQueue& q, Duration d);
  void cancel_timer(HostQueue& q) { q.timer.cancel(); }
  // The IRQ thread sleeps; it is woken `after` from now unless woken otherwise first.
  void sleep_thread(HostQueue& q, Duration after);
  // The queue's irq_poll entry goes back on its core's list, polled again in the next
  // pass of the running softirq (no timer): lib/irq_poll.c after a full-weight poll.
  void poll_again(HostQueue& q);
  // blk-mq sends request `rid` to `core` to be finished there (llist_add; the IPI goes
  // when the list was empty).
  void complete_on(uint32_t core, uint32_t rid);
  // The core's ksoftirqd takes the softirq work that a run left pending.
  void wake_ksoftirqd(uint32_t core);

  Time now() const { return m_.eq->now(); }
  const HostProfile& host() const { return m_.scenario->host; }
  const Topology& topology() const { return *m_.topology; }
  HostQueue& queue(uint32_t gq) { return *(*m_.queues)[gq]; }
  Device& device(uint32_t d) { return *(*m_.devices)[d]; }
  HostDrive& drive(uint32_t d) { return (*m_.drives)[d]; }
  CoreSoftirq& softirq(uint32_t core) { return (*m_.softirqs)[core]; }
  CqReaper& reaper() { return *m_.reaper; }
  RunObserver& observer() { return *m_.observer; }

 private:
  static void on_msix(void* self, uint32_t drive, uint32_t vector, Duration after);
  static void on_irq_arrival(void* self, uint64_t queue);
  static void on_timer(void* self, uint64_t token);
  static void on_thread_wake(void* self, uint64_t token);
  static void on_monitor(void* self, uint64_t drive);
  static void on_completion_ipi(void* self, uint64_t core);
  // The message for queue `q`'s vector reaches its core `after` from now.
  void deliver_irq(HostQueue& q, Duration after);
  // The arrival at the head of q's messages on their way happened: the next gets its
  // event, unless it would only latch the pending bit of q's running handler.
  void next_arrival(HostQueue& q);
  void raise_softirq(uint32_t core, SoftirqItem item);
  // An hrtimer expired: its work runs now (folded) or in the core's timer interrupt.
  void timer_expired(uint32_t core, TimerExpiryItem item);
  Core& core(uint32_t c) { return *(*m_.cores)[c]; }
  // How long drive `drive`'s message takes from its write to the core's APIC.
  Duration msix_latency(uint32_t drive);

  Machine m_;
  sim::EventQueue::Bound irq_arrival_;  // on_irq_arrival, bound once
  std::vector<MsixPath> msix_paths_;  // empty when the host profile has none
  std::vector<Duration> msix_delivery_;  // per drive: its profile's msix_delivery
  std::vector<CoreTimerInterrupt> timer_irqs_;
};

}  // namespace nvmesim
