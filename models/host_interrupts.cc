#include "models/host_interrupts.h"

#include <variant>

#include "models/sim_drive_env.h"
#include "models/sim_queue_env.h"

namespace nvmesim {

// ---- hard IRQ --------------------------------------------------------------------------

Duration HostInterrupts::begin_hardirq(HostQueue& q) {
  const HostProfile& h = kernel_->host();
  RunObserver& obs = kernel_->observer();
  Duration cost = h.irq_entry + h.irq_exit;
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
  SimQueueEnv env(*kernel_, q, Context::hardirq, h.irq_entry);
  std::size_t before = q.drained.size();
  std::visit([&](auto& p) { p.on_interrupt(env); }, q.policy);
  if (obs.command_tracing())
    obs.hard_irq(q, kernel_->now(), static_cast<uint32_t>(q.drained.size() - before), false);
  return cost + env.cost();
}

bool HostInterrupts::end_hardirq(HostQueue& q) {
  delivery_->deliver(q);
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
  if (item.kind == SoftirqItem::Kind::drive_monitor) {
    SimDriveEnv env(*kernel_, item.index);
    Duration next = std::visit([&](auto& p) { return p.on_monitor(env); }, *kernel_->drive(item.index).policy);
    kernel_->schedule_monitor(item.index, next);
    return h.hrtimer_expiry + env.cost();
  }
  HostQueue& q = kernel_->queue(item.index);
  SimQueueEnv env(*kernel_, q, Context::softirq, h.hrtimer_expiry + h.softirq_entry);
  ++q.counters.timer_expiries;
  policy::TimerStep step = std::visit([&](auto& p) { return p.on_timer(env); }, q.policy);
  if (step.rearm) env.arm_timer(step.period);
  return h.hrtimer_expiry + h.softirq_entry + env.cost();
}

bool HostInterrupts::end_softirq(uint32_t core) {
  auto& work = kernel_->softirq(core).work;
  const SoftirqItem item = work.front();
  work.pop_front();
  if (item.kind == SoftirqItem::Kind::queue_timer) delivery_->deliver(kernel_->queue(item.index));
  return !work.empty();
}

// ---- IRQ threads -----------------------------------------------------------------------

Duration HostInterrupts::begin_thread(HostQueue& q) {
  const HostProfile& h = kernel_->host();
  Duration cost;
  if (q.thread.woken) {
    cost += h.context_switch;
    q.thread.woken = false;
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
  delivery_->deliver(q);
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
      // usleep_range(d, d + d * slack%): the hrtimer fires somewhere in the range
      // (uniformly, an assumption), then the thread is scheduled.
      int64_t slack = d.count_ns() * h.fsleep_slack_pct / 100;
      Duration wake = d + Duration::ns(static_cast<int64_t>(q.rng.uniform() * static_cast<double>(slack))) +
                      h.timer_slack_min + h.wakeup_latency;
      kernel_->sleep_thread(q, wake);
      return false;
    }
  }
  return false;
}

// ---- polling from the application ------------------------------------------------------

Duration HostInterrupts::app_poll(HostQueue& q) {
  SimQueueEnv env(*kernel_, q, Context::app);
  std::visit([&](auto& p) { p.on_app_poll(env); }, q.policy);
  return env.cost();
}

}  // namespace nvmesim
