#include "models/host_interrupts.h"

#include <variant>

#include "models/sim_drive_env.h"
#include "models/sim_queue_env.h"

namespace nvmesim {

void HostInterrupts::start() {
  for (uint32_t d = 0; d < m_.drives->size(); ++d)
    if ((*m_.drives)[d].policy) m_.eq->schedule(Time::zero(), &HostInterrupts::on_monitor, this, d);
}

// ---- hard IRQ --------------------------------------------------------------------------

void HostInterrupts::on_msix(void* self, uint32_t drive, uint32_t vector) {
  auto* h = static_cast<HostInterrupts*>(self);
  const HostQueue& q = h->queue(h->topology().drive_queues(drive)[vector]);
  h->deliver_irq(q, h->m_.scenario->drives[drive].profile.msix_delivery);
}

void HostInterrupts::deliver_irq(const HostQueue& q, Duration after) {
  m_.eq->schedule_in(after, &HostInterrupts::on_irq_arrival, this, q.index);
}

void HostInterrupts::on_irq_arrival(void* self, uint64_t gq) {
  auto* h = static_cast<HostInterrupts*>(self);
  HostQueue& q = h->queue(static_cast<uint32_t>(gq));
  Core& core = h->core(q.core);
  if (core.running() == &q.hardirq) {
    q.apic_pending = true;  // latched in the local APIC, runs again after EOI
  } else if (!q.hardirq.queued) {
    core.make_runnable(q.hardirq);
  }  // else already waiting to run: the two messages merge
}

Duration HostInterrupts::begin_hardirq(HostQueue& q) {
  const HostProfile& h = host();
  Duration cost = h.irq_entry + h.irq_exit;
  if (q.irq_disabled) {
    // disable_irq_nosync was called: the flow handler masks the entry and marks the
    // interrupt for replay, without running the handler.
    cost += h.lazy_mask;
    ++q.lazy_masked;
    if (observer().command_tracing()) observer().hard_irq(q, now(), 0, true);
    q.irq_replay = true;
    if (!q.irq_hw_masked) {
      q.irq_hw_masked = true;
      device(q.drive).set_vector_masked(q.qid, true);
    }
    return cost;
  }
  SimQueueEnv env(*this, q, Context::hardirq, h.irq_entry);
  std::size_t before = q.drained.size();
  std::visit([&](auto& p) { p.on_interrupt(env); }, q.policy);
  if (observer().command_tracing())
    observer().hard_irq(q, now(), static_cast<uint32_t>(q.drained.size() - before), false);
  return cost + env.cost();
}

bool HostInterrupts::end_hardirq(HostQueue& q) {
  m_.delivery->deliver(q);
  if (q.apic_pending) {
    q.apic_pending = false;
    return true;
  }
  return false;
}

// ---- the vector, the thread and the timer, as a policy's env drives them ----------------

Duration HostInterrupts::mask_vector(HostQueue& q) {
  ++q.counters.masks;
  q.irq_disabled = true;  // lazy: the MSI-X entry is masked only if an interrupt comes
  return host().irq_disable;
}

Duration HostInterrupts::unmask_vector(HostQueue& q) {
  ++q.counters.unmasks;
  q.irq_disabled = false;
  if (q.irq_replay) {
    // The interrupt caught while disabled is resent (check_irq_resend).
    q.irq_replay = false;
    deliver_irq(q, m_.scenario->drives[q.drive].profile.msix_delivery);
  }
  if (q.irq_hw_masked) {
    q.irq_hw_masked = false;
    device(q.drive).set_vector_masked(q.qid, false);  // sends if the pending bit is set
  }
  return host().irq_enable;
}

Duration HostInterrupts::wake_thread(HostQueue& q) {
  ++q.counters.thread_wakeups;
  if (q.thread_parking) {
    q.thread_rewake = true;  // a wake-up between the decision to park and the switch-out
  } else if (q.thread_parked) {
    q.thread_parked = false;
    q.thread.woken = true;
    core(q.core).make_runnable(q.thread);
  }  // else running or in fsleep: nothing to wake
  return host().wakeup;
}

Duration HostInterrupts::arm_timer(HostQueue& q, Duration d) {
  m_.eq->schedule_in(max(d, Duration::zero()), &HostInterrupts::on_timer, this, q.timer.arm(q.index).pack());
  return host().hrtimer_arm;
}

// ---- softirq: hrtimer expiries that run a policy's on_timer (irq_poll), drive monitors ---

void HostInterrupts::raise_softirq(uint32_t c, SoftirqItem item) {
  CoreSoftirq& s = (*m_.softirqs)[c];
  s.work.push_back(item);
  core(c).make_runnable(s.task);
}

void HostInterrupts::on_timer(void* self, uint64_t arg) {
  auto* h = static_cast<HostInterrupts*>(self);
  const sim::TimerToken token = sim::TimerToken::unpack(arg);
  HostQueue& q = h->queue(token.owner);
  if (!q.timer.current(token)) return;  // cancelled or re-armed
  h->raise_softirq(q.core, SoftirqItem{SoftirqItem::Kind::queue_timer, q.index});
}

void HostInterrupts::on_monitor(void* self, uint64_t d) {
  auto* h = static_cast<HostInterrupts*>(self);
  const auto drive = static_cast<uint32_t>(d);
  h->raise_softirq(h->topology().monitor_core(drive), SoftirqItem{SoftirqItem::Kind::drive_monitor, drive});
}

Duration HostInterrupts::begin_softirq(uint32_t c) {
  const HostProfile& h = host();
  const SoftirqItem item = (*m_.softirqs)[c].work.front();
  if (item.kind == SoftirqItem::Kind::drive_monitor) {
    SimDriveEnv env(*this, item.index);
    Duration next = drive(item.index).policy->on_monitor(env);
    m_.eq->schedule_in(next, &HostInterrupts::on_monitor, this, item.index);
    return h.hrtimer_expiry + env.cost();
  }
  HostQueue& q = queue(item.index);
  SimQueueEnv env(*this, q, Context::softirq, h.hrtimer_expiry + h.softirq_entry);
  ++q.counters.timer_expiries;
  policy::TimerStep step = std::visit([&](auto& p) { return p.on_timer(env); }, q.policy);
  if (step.rearm) env.arm_timer(step.period);
  return h.hrtimer_expiry + h.softirq_entry + env.cost();
}

bool HostInterrupts::end_softirq(uint32_t c) {
  auto& work = (*m_.softirqs)[c].work;
  const SoftirqItem item = work.front();
  work.pop_front();
  if (item.kind == SoftirqItem::Kind::queue_timer) m_.delivery->deliver(queue(item.index));
  return !work.empty();
}

// ---- IRQ threads -----------------------------------------------------------------------

Duration HostInterrupts::begin_thread(HostQueue& q) {
  const HostProfile& h = host();
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
  SimQueueEnv env(*this, q, Context::irq_thread);
  q.thread_step = std::visit([&](auto& p) { return p.on_thread(env); }, q.policy);
  q.thread_step_is_wait = false;
  q.thread_parking = q.thread_step.kind == policy::ThreadStep::Kind::park;
  if (q.thread_step.kind == policy::ThreadStep::Kind::resched) env.add_cost(h.cond_resched);
  return cost + env.cost();
}

bool HostInterrupts::end_thread(HostQueue& q) {
  m_.delivery->deliver(q);
  if (q.thread_step_is_wait) return true;
  const HostProfile& h = host();
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
      m_.eq->schedule_in(wake, &HostInterrupts::on_thread_wake, this, q.thread_sleep.arm(q.index).pack());
      return false;
    }
  }
  return false;
}

void HostInterrupts::on_thread_wake(void* self, uint64_t arg) {
  auto* h = static_cast<HostInterrupts*>(self);
  const sim::TimerToken token = sim::TimerToken::unpack(arg);
  HostQueue& q = h->queue(token.owner);
  if (!q.thread_sleep.current(token)) return;
  q.thread.woken = true;
  h->core(q.core).make_runnable(q.thread);
}

// ---- polling from the application ------------------------------------------------------

Duration HostInterrupts::app_poll(HostQueue& q) {
  SimQueueEnv env(*this, q, Context::app);
  std::visit([&](auto& p) { p.on_app_poll(env); }, q.policy);
  return env.cost();
}

}  // namespace nvmesim
