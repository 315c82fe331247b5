#include "models/host_interrupts.h"

#include <variant>

#include "models/sim_drive_env.h"
#include "models/sim_queue_env.h"
#include "models/timer_slack.h"

namespace nvmesim {

// ---- hard IRQ --------------------------------------------------------------------------

Duration HostInterrupts::begin_hardirq(HostQueue& q) {
  const HostProfile& h = kernel_->host();
  RunObserver& obs = kernel_->observer();
  Duration cost = h.irq_entry + h.irq_exit;
  q.reaper_cold = true;
  if (q.irq_disabled) {
    // disable_irq_nosync was called: the flow handler masks the entry and marks the
    // interrupt for replay, without running the handler.
    cost += h.lazy_mask;
    ++q.lazy_masked;
    if (obs.command_tracing()) obs.hard_irq(q, kernel_->now(), 0, true);
    q.irq_replay = true;
    if (!q.irq_hw_masked) {
      q.irq_hw_masked = true;
      kernel_->device(q.drive).set_vector_masked(q.qid, true);
    }
    return cost;
  }
  SimQueueEnv env(*kernel_, q, Context::hardirq, kernel_->segment_overhead(q.core) + h.irq_entry);
  std::size_t before = q.drained.size();
  std::visit([&](auto& p) { p.on_interrupt(env); }, q.policy);
  if (obs.command_tracing())
    obs.hard_irq(q, kernel_->now(), static_cast<uint32_t>(q.drained.size() - before), false);
  return cost + env.cost();
}

bool HostInterrupts::end_hardirq(HostQueue& q) {
  delivery_->deliver(q, Context::hardirq);
  kernel_->interrupt_returned(q.core);
  if (q.apic_pending) {
    q.apic_pending = false;
    return true;
  }
  return false;
}

// ---- softirq -------------------------------------------------------------------------------

Duration HostInterrupts::begin_softirq(uint32_t core) {
  const HostProfile& h = kernel_->host();
  const SoftirqItem item = kernel_->softirq(core).work.front();
  const bool folded = h.timer_expiry == TimerExpiry::folded;
  if (item.kind == SoftirqItem::Kind::drive_monitor) {
    SimDriveEnv env(*kernel_, item.index);
    Duration next = std::visit([&](auto& p) { return p.on_monitor(env); }, *kernel_->drive(item.index).policy);
    kernel_->schedule_monitor(item.index, next);
    return (folded ? h.hrtimer_expiry : h.softirq_entry) + env.cost();
  }
  HostQueue& q = kernel_->queue(item.index);
  // Folded: the expiry's whole cost is here; else the timer interrupt paid for it.
  const Duration before = (folded ? h.hrtimer_expiry : Duration::zero()) + h.softirq_entry;
  SimQueueEnv env(*kernel_, q, Context::softirq, kernel_->segment_overhead(core) + before);
  ++q.counters.timer_expiries;
  q.reaper_cold = true;
  policy::TimerStep step = std::visit([&](auto& p) { return p.on_timer(env); }, q.policy);
  if (step.rearm) env.arm_timer(step.period);
  return before + env.cost();
}

bool HostInterrupts::end_softirq(uint32_t core) {
  auto& work = kernel_->softirq(core).work;
  const SoftirqItem item = work.front();
  work.pop_front();
  if (item.kind == SoftirqItem::Kind::queue_timer) delivery_->deliver(kernel_->queue(item.index), Context::softirq);
  return !work.empty();
}

// ---- a core's local timer interrupt ------------------------------------------------------

Duration HostInterrupts::begin_timer_irq(uint32_t core) {
  const HostProfile& h = kernel_->host();
  CoreTimerInterrupt& t = kernel_->timer_interrupt(core);
  t.in_service = t.expired.size();
  return h.irq_entry + h.irq_exit + h.hrtimer_expiry * static_cast<int64_t>(t.in_service);
}

bool HostInterrupts::end_timer_irq(uint32_t core) {
  CoreTimerInterrupt& t = kernel_->timer_interrupt(core);
  for (std::size_t i = 0; i < t.in_service; ++i) kernel_->run_expiry(t.expired[i]);
  t.expired.erase(t.expired.begin(), t.expired.begin() + static_cast<std::ptrdiff_t>(t.in_service));
  t.in_service = 0;
  kernel_->interrupt_returned(core);
  return !t.expired.empty();  // expired meanwhile: the APIC timer fires again
}

// ---- IRQ threads -----------------------------------------------------------------------

Duration HostInterrupts::begin_thread(HostQueue& q) {
  const HostProfile& h = kernel_->host();
  Duration cost;
  if (q.thread.woken) {
    cost += h.context_switch;
    q.thread.woken = false;
    q.reaper_cold = true;  // switched in: the first drain starts on cold caches
  }
  if (q.thread_busy_wait > Duration::zero()) {
    // fsleep of 10 us or less: udelay, the core stays busy in this thread.
    cost += q.thread_busy_wait;
    q.thread_busy_wait = Duration::zero();
    q.thread_step = policy::ThreadStep::resched();
    q.thread_step_is_wait = true;
    return cost;
  }
  SimQueueEnv env(*kernel_, q, Context::irq_thread);
  q.thread_step = std::visit([&](auto& p) { return p.on_thread(env); }, q.policy);
  q.thread_step_is_wait = false;
  q.thread_parking = q.thread_step.kind == policy::ThreadStep::Kind::park;
  if (q.thread_step.kind == policy::ThreadStep::Kind::resched) env.add_cost(h.cond_resched);
  return cost + env.cost();
}

bool HostInterrupts::end_thread(HostQueue& q) {
  delivery_->deliver(q, Context::irq_thread);
  if (q.thread_step_is_wait) return true;
  const HostProfile& h = kernel_->host();
  switch (q.thread_step.kind) {
    case policy::ThreadStep::Kind::park:
      q.thread_parking = false;
      if (q.thread_rewake) {
        q.thread_rewake = false;
        return true;
      }
      q.thread_parked = true;
      return false;
    case policy::ThreadStep::Kind::resched:
      return true;
    case policy::ThreadStep::Kind::sleep: {
      ++q.counters.sleeps;
      Duration d = q.thread_step.duration;
      if (d <= h.fsleep_busy_max) {
        q.thread_busy_wait = d;
        return true;
      }
      // usleep_range(d, d + d * slack%): the hrtimer fires in the range, then the
      // thread is scheduled.
      const Duration slack = range_sleep_slack(h.timer_slack, d, h.fsleep_slack_pct, /*rt=*/true, q.rng);
      kernel_->sleep_thread(q, d + slack + h.timer_slack_min + h.wakeup_latency);
      return false;
    }
  }
  return false;
}

// ---- polling from the application ------------------------------------------------------

Duration HostInterrupts::app_poll(HostQueue& q) {
  q.reaper_cold = false;  // the polling loop keeps the completion path warm
  SimQueueEnv env(*kernel_, q, Context::app);
  std::visit([&](auto& p) { p.on_app_poll(env); }, q.policy);
  return env.cost();
}

}  // namespace nvmesim
