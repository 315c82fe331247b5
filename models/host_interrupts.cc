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
  CoreSoftirq& s = kernel_->softirq(core);
  if (!s.run.running()) {
    s.run.begin(kernel_->now(), s.work.size());
    s.poll_budget_left = kernel_->host().irq_poll.budget_per_cpu;
  }
  if (s.work.empty()) {  // ksoftirqd took it meanwhile
    s.current = SoftirqItem{SoftirqItem::Kind::none, 0, 0};
    return Duration::zero();
  }
  s.current = s.work.front();
  s.work.pop_front();
  s.run.took_item();
  return softirq_item(core, s.current, true);
}

bool HostInterrupts::end_softirq(uint32_t core) {
  CoreSoftirq& s = kernel_->softirq(core);
  finish_softirq_item(s.current);
  switch (s.run.after_item(kernel_->now(), s.work.size())) {
    case SoftirqRun::Next::item: return true;
    case SoftirqRun::Next::done: return false;
    case SoftirqRun::Next::to_ksoftirqd: kernel_->wake_ksoftirqd(core); return false;
  }
  return false;
}

// ksoftirqd: one item per segment while work is pending, an ordinary task between them.
Duration HostInterrupts::begin_ksoftirqd(uint32_t core) {
  CoreSoftirq& s = kernel_->softirq(core);
  Duration cost;
  if (s.ksoftirqd.woken) {
    cost += kernel_->host().context_switch;
    s.ksoftirqd.woken = false;
  }
  s.ksoftirqd_in_segment = true;
  if (s.work.empty()) {
    s.ksoftirqd_current = SoftirqItem{SoftirqItem::Kind::none, 0, 0};
    return cost;
  }
  s.ksoftirqd_current = s.work.front();
  s.work.pop_front();
  return cost + softirq_item(core, s.ksoftirqd_current, false);
}

bool HostInterrupts::end_ksoftirqd(uint32_t core) {
  CoreSoftirq& s = kernel_->softirq(core);
  s.ksoftirqd_in_segment = false;
  finish_softirq_item(s.ksoftirqd_current);
  return !s.work.empty();
}

Duration HostInterrupts::softirq_item(uint32_t core, const SoftirqItem& item, bool in_run) {
  const HostProfile& h = kernel_->host();
  switch (item.kind) {
    case SoftirqItem::Kind::none: return Duration::zero();
    case SoftirqItem::Kind::drive_monitor: {
      SimDriveEnv env(*kernel_, item.index);
      Duration next = std::visit([&](auto& p) { return p.on_monitor(env); }, *kernel_->drive(item.index).policy);
      kernel_->schedule_monitor(item.index, next);
      return h.hrtimer_expiry + env.cost();
    }
    case SoftirqItem::Kind::queue_timer:
    case SoftirqItem::Kind::irq_poll_again: break;
  }
  HostQueue& q = kernel_->queue(item.index);
  const bool expiry = item.kind == SoftirqItem::Kind::queue_timer;
  if (!expiry && !q.timer.current(sim::TimerToken{q.index, item.generation})) return Duration::zero();  // stopped
  // A re-poll in the same softirq run pays no timer interrupt and no softirq entry.
  const Duration entry = expiry ? h.hrtimer_expiry + h.softirq_entry : Duration::zero();
  SimQueueEnv env(*kernel_, q, Context::softirq, entry);
  if (expiry) ++q.counters.timer_expiries;
  const std::size_t before = q.drained.size();
  policy::TimerStep step = std::visit([&](auto& p) { return p.on_timer(env); }, q.policy);
  if (step.rearm) rearm_poll(q, env, step.period, entry);
  if (in_run && h.irq_poll.budget_per_cpu > 0) {
    CoreSoftirq& s = kernel_->softirq(core);
    s.poll_budget_left -= static_cast<int64_t>(q.drained.size() - before);
    if (s.poll_budget_left <= 0) s.run.end_pass();  // irq_poll re-raises itself
  }
  return entry + env.cost();
}

// The policy asked to poll again: at once (its whole budget used) or after `period`.
void HostInterrupts::rearm_poll(HostQueue& q, SimQueueEnv& env, Duration period, Duration entry) {
  const IrqPollSpec& ip = kernel_->host().irq_poll;
  if (period == Duration::zero() && ip.budget_per_cpu > 0) {
    kernel_->poll_again(q);  // lib/irq_poll.c: stays on the CPU's list, no new timer
    return;
  }
  // From the poll's end (hrtimer_start when the poll is done) or from its start.
  env.arm_timer(ip.rearm_from_poll_end ? period + entry + env.cost() : period);
}

void HostInterrupts::finish_softirq_item(const SoftirqItem& item) {
  if (item.kind == SoftirqItem::Kind::queue_timer || item.kind == SoftirqItem::Kind::irq_poll_again)
    delivery_->deliver(kernel_->queue(item.index));
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
