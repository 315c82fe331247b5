#include "models/host/host_interrupts.h"

#include <algorithm>
#include <variant>
#include <vector>

#include "models/system/sim_drive_env.h"
#include "models/system/sim_queue_env.h"
#include "models/host/timer_slack.h"

namespace nvmesim {

// ---- hard IRQ --------------------------------------------------------------------------

Duration HostInterrupts::begin_hardirq(HostQueue& q) {
  const HostProfile& h = kernel_->host();
  RunObserver& obs = kernel_->observer();
  // A posted notification's handler enters and exits once for the vectors it runs; each
  // vector costs its demultiplexing. `before_handler`: what precedes the handler's work.
  const bool follower = q.posted_role == HostQueue::PostedRole::follower;
  const Duration demux = q.posted_role == HostQueue::PostedRole::none ? Duration::zero() : h.posted_demux;
  const Duration before_handler = (follower ? Duration::zero() : h.irq_entry) + demux;
  Duration cost = before_handler + (follower ? Duration::zero() : h.irq_exit);
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
  SimQueueEnv env(*kernel_, q, Context::hardirq, kernel_->segment_overhead(q.core) + before_handler);
  std::size_t before = q.drained.size();
  std::visit([&](auto& p) { p.on_interrupt(env); }, q.policy);
  if (obs.command_tracing())
    obs.hard_irq(q, kernel_->now(), static_cast<uint32_t>(q.drained.size() - before), false);
  return cost + env.cost() + completion_ipi_cost(q, before);
}

bool HostInterrupts::end_hardirq(HostQueue& q) {
  hand_off(q, Context::hardirq);
  if (q.posted_role != HostQueue::PostedRole::none) return kernel_->posted_handler_done(q);
  kernel_->interrupt_returned(q.core);
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
  finish_softirq_item(s.current, true);
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
  finish_softirq_item(s.ksoftirqd_current, false);
  return !s.work.empty();
}

Duration HostInterrupts::softirq_item(uint32_t core, const SoftirqItem& item, bool in_run) {
  const HostProfile& h = kernel_->host();
  const bool folded = h.timer_expiry == TimerExpiry::folded;
  switch (item.kind) {
    case SoftirqItem::Kind::none: return Duration::zero();
    case SoftirqItem::Kind::block_done: {
      // The IPI's interrupt, BLOCK_SOFTIRQ, and each request's end on this core.
      CoreSoftirq& s = kernel_->softirq(core);
      std::vector<uint32_t>& taken = in_run ? s.remote_taken : s.ksoftirqd_remote_taken;
      taken.insert(taken.end(), s.remote_done.begin(), s.remote_done.end());
      s.remote_done.clear();  // llist_del_all: the next request sends a new IPI
      return h.irq_entry + h.irq_exit + h.softirq_entry + h.completion_ipi.remote_per_cqe * static_cast<int64_t>(taken.size());
    }
    case SoftirqItem::Kind::drive_monitor: {
      SimDriveEnv env(*kernel_, item.index);
      Duration next = std::visit([&](auto& p) { return p.on_monitor(env); }, *kernel_->drive(item.index).policy);
      kernel_->schedule_monitor(item.index, next);
      return (folded ? h.hrtimer_expiry : h.softirq_entry) + env.cost();
    }
    case SoftirqItem::Kind::queue_timer:
    case SoftirqItem::Kind::irq_poll_again: break;
  }
  HostQueue& q = kernel_->queue(item.index);
  const bool expiry = item.kind == SoftirqItem::Kind::queue_timer;
  if (!expiry && !q.timer.current(sim::TimerToken{q.index, item.generation})) return Duration::zero();  // stopped
  // A re-poll in the same softirq run pays no timer interrupt and no softirq entry.
  // Folded: the expiry's whole cost is here; else the timer interrupt paid for it.
  const Duration entry =
      expiry ? (folded ? h.hrtimer_expiry : Duration::zero()) + h.softirq_entry : Duration::zero();
  SimQueueEnv env(*kernel_, q, Context::softirq, kernel_->segment_overhead(core) + entry);
  if (expiry) {
    ++q.counters.timer_expiries;
    q.reaper_cold = true;
  }
  const std::size_t before = q.drained.size();
  policy::TimerStep step = std::visit([&](auto& p) { return p.on_timer(env); }, q.policy);
  if (step.rearm) rearm_poll(q, env, step.period, kernel_->segment_overhead(core) + entry);
  const Duration ipis = completion_ipi_cost(q, before);
  if (in_run && h.irq_poll.budget_per_cpu > 0) {
    CoreSoftirq& s = kernel_->softirq(core);
    s.poll_budget_left -= static_cast<int64_t>(q.drained.size() - before);
    if (s.poll_budget_left <= 0) s.run.end_pass();  // irq_poll re-raises itself
  }
  return entry + env.cost() + ipis;
}

// The policy asked to poll again: at once (its whole budget used) or after `period`.
void HostInterrupts::rearm_poll(HostQueue& q, SimQueueEnv& env, Duration period, Duration before) {
  const IrqPollSpec& ip = kernel_->host().irq_poll;
  if (period == Duration::zero() && ip.budget_per_cpu > 0) {
    kernel_->poll_again(q);  // lib/irq_poll.c: stays on the CPU's list, no new timer
    return;
  }
  // From the poll's end (hrtimer_start when the poll is done) or from its start.
  env.arm_timer(ip.rearm_from_poll_end ? period + before + env.cost() : period);
}

void HostInterrupts::finish_softirq_item(const SoftirqItem& item, bool in_run) {
  if (item.kind == SoftirqItem::Kind::queue_timer || item.kind == SoftirqItem::Kind::irq_poll_again)
    hand_off(kernel_->queue(item.index), Context::softirq);
  if (item.kind == SoftirqItem::Kind::block_done) {
    CoreSoftirq& s = kernel_->softirq(item.index);
    delivery_->deliver(in_run ? s.remote_taken : s.ksoftirqd_remote_taken, Context::softirq);
  }
}

// ---- blk-mq completion on the submitting CPU ---------------------------------------------

namespace {
bool share_cache(uint32_t a, uint32_t b, uint32_t cores_per_llc) { return a / cores_per_llc == b / cores_per_llc; }
}  // namespace

Duration HostInterrupts::completion_ipi_cost(const HostQueue& q, std::size_t first) const {
  const CompletionIpiSpec& ipi = kernel_->host().completion_ipi;
  if (!ipi.active() || q.submitters_on_core) return Duration::zero();
  // One IPI per remote core whose list is empty now (llist_add returns true once).
  Duration cost;
  std::vector<uint32_t> targets;
  for (std::size_t i = first; i < q.drained.size(); ++i) {
    const uint32_t c = delivery_->submitter_core(q.drained[i]);
    if (c == q.core || share_cache(c, q.core, ipi.cores_per_llc)) continue;
    if (std::find(targets.begin(), targets.end(), c) != targets.end()) continue;
    targets.push_back(c);
    if (kernel_->softirq(c).remote_done.empty()) cost += ipi.send;
  }
  return cost;
}

void HostInterrupts::hand_off(HostQueue& q, Context ctx) {
  const CompletionIpiSpec& ipi = kernel_->host().completion_ipi;
  if (ipi.active() && !q.submitters_on_core) {
    auto keep = q.drained.begin();
    for (uint32_t rid : q.drained) {
      const uint32_t c = delivery_->submitter_core(rid);
      if (c == q.core || share_cache(c, q.core, ipi.cores_per_llc)) *keep++ = rid;
      else kernel_->complete_on(c, rid);
    }
    q.drained.erase(keep, q.drained.end());
  }
  delivery_->deliver(q, ctx);
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
  const std::size_t before = q.drained.size();
  q.thread_step = std::visit([&](auto& p) { return p.on_thread(env); }, q.policy);
  q.thread_step_is_wait = false;
  q.thread_parking = q.thread_step.kind == policy::ThreadStep::Kind::park;
  if (q.thread_step.kind == policy::ThreadStep::Kind::resched) env.add_cost(h.cond_resched);
  return cost + env.cost() + completion_ipi_cost(q, before);
}

bool HostInterrupts::end_thread(HostQueue& q) {
  hand_off(q, Context::irq_thread);
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

Duration HostInterrupts::app_poll(HostQueue& q, uint32_t& found) {
  q.reaper_cold = false;  // the polling loop keeps the completion path warm
  SimQueueEnv env(*kernel_, q, Context::app);
  std::visit([&](auto& p) { found += p.on_app_poll(env); }, q.policy);
  return env.cost();
}

}  // namespace nvmesim
