// The host's interrupt-side contexts on the simulated queues, each one CPU segment at a
// time: the hard IRQ (with the kernel's lazy disable: mask and hold for replay), softirq
// processing (a queue policy's on_timer, irq_poll; a drive policy's monitor), the IRQ
// thread's loop with its sleeps, a core's local timer interrupt, and the application's
// polling pass. Each runs the
// queue's policy through a SimQueueEnv; the kernel services it uses are HostKernel's.
#pragma once

#include <cstdint>

#include "models/host/completion_delivery.h"
#include "models/host/host_kernel.h"
#include "models/host/host_queue.h"
#include "models/system/sim_queue_env.h"
#include "models/host/softirq_work.h"
#include "vocab/time.h"

namespace nvmesim {

class HostInterrupts {
 public:
  HostInterrupts(HostKernel& kernel, CompletionDelivery& delivery) : kernel_(&kernel), delivery_(&delivery) {}

  // One segment of each context: its cost as it begins, and whether the task stays
  // runnable when it ends.
  Duration begin_hardirq(HostQueue& q);
  bool end_hardirq(HostQueue& q);
  Duration begin_softirq(uint32_t core);
  bool end_softirq(uint32_t core);
  Duration begin_ksoftirqd(uint32_t core);
  bool end_ksoftirqd(uint32_t core);
  Duration begin_thread(HostQueue& q);
  bool end_thread(HostQueue& q);
  // A core's local timer interrupt (timer_expiry "interrupt"): the callbacks of the
  // hrtimers expired by the time it starts.
  Duration begin_timer_irq(uint32_t core);
  bool end_timer_irq(uint32_t core);
  // One pass of the application's polling (io_uring IOPOLL) over a queue, inside the
  // app's segment: its cost; `found` grows by the CQEs it consumed. Completions are handed
  // over when that segment ends.
  Duration app_poll(HostQueue& q, uint32_t& found);

 private:
  // One item of softirq work: its cost. `in_run`: taken by the softirq task's run (which
  // keeps irq_poll's per-CPU budget), not by ksoftirqd.
  Duration softirq_item(uint32_t core, const SoftirqItem& item, bool in_run);
  void rearm_poll(HostQueue& q, SimQueueEnv& env, Duration period, Duration before);
  void finish_softirq_item(const SoftirqItem& item, bool in_run);
  // blk-mq's choice for the CQEs an interrupt-side context drained on q's core: the
  // senders' cost of the completion IPIs they need (at the segment's start), and the
  // hand-off, local or to the submitting cores (at its end).
  Duration completion_ipi_cost(const HostQueue& q, std::size_t first) const;
  void hand_off(HostQueue& q, Context ctx);

  HostKernel* kernel_;
  CompletionDelivery* delivery_;
};

}  // namespace nvmesim
