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
#include <optional>
#include <span>
#include <vector>

#include "models/host/cpu_core.h"
#include "models/host/cq_reaper.h"
#include "models/device/device.h"
#include "models/host/host_drive.h"
#include "models/host/host_queue.h"
#include "models/host/interrupt_delivery.h"
#include "models/host/platform_placement.h"
#include "models/system/run_observer.h"
#include "models/host/softirq_work.h"
#include "models/host/timer_interrupt.h"
#include "models/host/topology.h"
#include "sim/event_queue.h"
#include "vocab/mode_timeline.h"
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

  // The platform's interrupt delivery that the drives' messages take in PCIe order with
  // their other posted writes, or null (no platform model).
  InterruptDelivery* interrupt_delivery() { return delivery_ ? &*delivery_ : nullptr; }
  const PlatformPlacement& placement() const { return placement_; }
  // Posted MSIs: a handler that a notification ran on its core returned (its role
  // decides what follows: another round of pending vectors, the descriptor's
  // notification bit cleared, the next notification).
  // True if q's own handler runs again (its bit was set again meanwhile): the core
  // requeues the task that is ending.
  bool posted_handler_done(HostQueue& q);
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
  // Mode changes kept per queue or drive (later ones are counted, not kept): at most
  // kModeTimelineCap, fewer when the memory limit holds fewer (run options).
  std::size_t timeline_cap() const { return timeline_cap_; }
  void set_timeline_cap(std::size_t n) { timeline_cap_ = n; }

 private:
  static void on_msix(void* self, uint32_t drive, uint32_t vector, Duration after, bool posted);
  static void on_posted(void* self, uint64_t queue);
  static void on_notify(void* self, uint64_t queue);
  static void on_notification(void* self, uint64_t core);
  // The core's notification handler takes the vectors pending in its descriptor now.
  void start_notification(uint32_t core, const HostQueue* ending = nullptr, bool* rerun = nullptr);
  // Runs the handlers of the vectors pending on `core`'s descriptor; false if none was.
  // `ending`: a handler whose segment is ending (the core requeues it; *rerun says so).
  bool run_pending_vectors(uint32_t core, bool first_round, const HostQueue* ending = nullptr, bool* rerun = nullptr);
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

  Machine m_;
  sim::EventQueue::Bound irq_arrival_;  // on_irq_arrival, bound once
  PlatformPlacement placement_;
  std::optional<InterruptDelivery> delivery_;  // none: the host profile has no platform model
  // Posted MSIs, per core: its posted-interrupt descriptor and its notification handler.
  struct PostedCore {
    bool on = false;             // a notification is outstanding (PID.ON)
    bool handling = false;       // its handler runs (between entry and exit)
    bool next = false;           // another notification came meanwhile (latched)
    uint32_t rounds = 0;         // demultiplexing rounds run before ON is cleared
    bool final_round = false;    // ON is cleared: the last round runs
    uint32_t running = 0;        // handlers of the current round not yet returned
    std::vector<uint32_t> pir;   // queues whose bit is set, in the order they were set
  };
  std::vector<PostedCore> posted_;
  std::vector<Duration> msix_delivery_;  // per drive: its profile's msix_delivery
  std::vector<CoreTimerInterrupt> timer_irqs_;
  std::size_t timeline_cap_ = kModeTimelineCap;
};

}  // namespace nvmesim
