#include "models/host/host_kernel.h"

#include <algorithm>
#include <cassert>

namespace nvmesim {

HostKernel::HostKernel(Machine m)
    : m_(m), irq_arrival_(m.eq->bind(&HostKernel::on_irq_arrival, this)), placement_(*m.scenario) {
  for (const auto& d : m_.scenario->drives) msix_delivery_.push_back(d.profile.msix_delivery);
  const PlatformSpec& platform = m_.scenario->host.platform;
  if (!platform.active()) return;
  delivery_.emplace(platform, placement_);
  delivery_->bind(m_.eq);
  if (delivery_->posted()) posted_.resize(m_.scenario->host.cores);
}

void HostKernel::build_timer_interrupts(uint32_t cores) {
  timer_irqs_.resize(cores);
  for (uint32_t c = 0; c < cores; ++c) {
    timer_irqs_[c].task = Task::make(Context::hardirq, c, c);
    timer_irqs_[c].task.timer_irq = true;
  }
}

void HostKernel::start_monitors(std::span<const uint32_t> drives) {
  for (uint32_t d : drives)
    if ((*m_.drives)[d].policy) m_.eq->schedule(Time::zero(), &HostKernel::on_monitor, this, d);
}

void HostKernel::schedule_monitor(uint32_t drive, Duration after) {
  m_.eq->schedule_in(after, &HostKernel::on_monitor, this, drive);
}

// ---- MSI-X messages ----------------------------------------------------------------------

void HostKernel::on_msix(void* self, uint32_t drive, uint32_t vector, Duration after, bool posted) {
  auto* k = static_cast<HostKernel*>(self);
  const uint32_t gq = k->topology().drive_queues(drive)[vector];
  if (posted) {
    k->m_.eq->schedule_in(after, &HostKernel::on_posted, k, gq);
    return;
  }
  k->deliver_irq(k->queue(gq), after + k->msix_delivery_[drive]);
}

// ---- posted MSIs (intremap=posted_msi) ----------------------------------------------------
// Linux arch/x86/kernel/irq.c (sysvec_posted_msi_notification) and the series' cover letter:
// the remapping unit sets the vector's bit in the target CPU's descriptor and sends a
// notification only if none is outstanding (ON clear). The notification's handler enters
// once, runs the pending vectors' handlers (up to MAX_POSTED_MSI_COALESCING_LOOP - 1 = 2
// rounds while bits keep coming), clears ON, runs one last round, and exits.

void HostKernel::on_posted(void* self, uint64_t gq) {
  auto* k = static_cast<HostKernel*>(self);
  HostQueue& q = k->queue(static_cast<uint32_t>(gq));
  PostedCore& pc = k->posted_[q.core];
  if (!q.pir) {
    q.pir = true;
    pc.pir.push_back(q.index);
  }
  if (pc.on) return;  // a notification is outstanding: this message coalesces into it
  pc.on = true;
  k->delivery_->arrivals(q.drive).add(InterruptDelivery::key(q.drive, InterruptDelivery::kNotification, q.qid),
                                      &HostKernel::on_notify, k, gq);
}

// The notification goes out through the drive's root complex and socket as a remappable
// interrupt would (it is one, on the notification vector).
void HostKernel::on_notify(void* self, uint64_t gq) {
  auto* k = static_cast<HostKernel*>(self);
  HostQueue& q = k->queue(static_cast<uint32_t>(gq));
  const InterruptTimes t = k->delivery_->notification(q.drive, k->now());
  k->device(q.drive).count_notification(t);
  const Time at = t.at_apic + k->msix_delivery_[q.drive];
  k->m_.eq->schedule(at, &HostKernel::on_notification, k, q.core);
}

void HostKernel::on_notification(void* self, uint64_t c) {
  auto* k = static_cast<HostKernel*>(self);
  PostedCore& pc = k->posted_[c];
  if (pc.handling) {
    pc.next = true;  // latched in the APIC: runs after this handler's EOI
    return;
  }
  k->start_notification(static_cast<uint32_t>(c));
}

void HostKernel::start_notification(uint32_t c, const HostQueue* ending, bool* rerun) {
  PostedCore& pc = posted_[c];
  pc.rounds = 1;
  pc.final_round = false;
  if (run_pending_vectors(c, true, ending, rerun)) return;
  // Nothing pending (the last round of the handler before took it): the entry and exit
  // of an empty notification are not modelled (the drives' results count every
  // notification sent).
  pc.on = false;
}

bool HostKernel::run_pending_vectors(uint32_t c, bool first_round, const HostQueue* ending, bool* rerun) {
  PostedCore& pc = posted_[c];
  if (pc.pir.empty()) return false;
  pc.handling = true;
  for (std::size_t i = 0; i < pc.pir.size(); ++i) {
    HostQueue& q = queue(pc.pir[i]);
    q.pir = false;
    q.posted_role = first_round && i == 0 ? HostQueue::PostedRole::leader : HostQueue::PostedRole::follower;
    if (&q == ending) *rerun = true;
    else core(c).make_runnable(q.hardirq);
  }
  pc.running = static_cast<uint32_t>(pc.pir.size());
  pc.pir.clear();
  return true;
}

bool HostKernel::posted_handler_done(HostQueue& q) {
  PostedCore& pc = posted_[q.core];
  if (q.posted_role == HostQueue::PostedRole::leader) interrupt_returned(q.core);
  q.posted_role = HostQueue::PostedRole::none;
  assert(pc.running > 0 && pc.handling && "a handler the notification ran returned");
  if (--pc.running > 0) return false;
  bool rerun = false;
  if (!pc.final_round && pc.rounds < 2 && run_pending_vectors(q.core, false, &q, &rerun)) {
    ++pc.rounds;
    return rerun;
  }
  if (!pc.final_round) {
    pc.final_round = true;
    pc.on = false;  // messages from here on notify again
    if (run_pending_vectors(q.core, false, &q, &rerun)) return rerun;
  }
  pc.handling = false;
  if (pc.next) {
    pc.next = false;
    start_notification(q.core, &q, &rerun);
  }
  return rerun;
}

// Messages to one vector arrive in sending order (the platform sends a drive's in order),
// so they wait in the queue's list and only the first has an event; each takes its event
// sequence number when sent, so the arrival that does get an event runs where it would
// have. A resend that overtakes the list (no platform delay) gets an event of its own.
namespace {
constexpr uint64_t kListedArrival = uint64_t{1} << 63;
}  // namespace

void HostKernel::deliver_irq(HostQueue& q, Duration after) {
  const Time at = now() + after;
  const Core& c = core(q.core);
  if (q.irq_arrivals.empty() && c.running() == &q.hardirq && at < c.segment_end()) {
    q.apic_pending = true;  // arrives while this queue's handler runs (see next_arrival)
    return;
  }
  if (!q.irq_arrivals.empty() && at < q.irq_arrivals.back().first) {
    m_.eq->schedule(at, irq_arrival_, q.index);
    return;
  }
  q.irq_arrivals.emplace_back(at, m_.eq->take_seq());
  if (q.irq_arrivals.size() == 1)
    m_.eq->schedule_taken(at, q.irq_arrivals.front().second, irq_arrival_, q.index | kListedArrival);
}

void HostKernel::on_irq_arrival(void* self, uint64_t arg) {
  auto* k = static_cast<HostKernel*>(self);
  HostQueue& q = k->queue(static_cast<uint32_t>(arg & ~kListedArrival));
  Core& core = k->core(q.core);
  if (core.running() == &q.hardirq) {
    q.apic_pending = true;  // latched in the local APIC, runs again after EOI
  } else if (!q.hardirq.queued) {
    core.make_runnable(q.hardirq);
  }  // else already waiting to run: the two messages merge
  if (arg & kListedArrival) k->next_arrival(q);
}

// A hard IRQ segment is never preempted (no level above it), so until it ends every
// message that arrives only latches the pending bit -- latched now, as the first of them
// would: those messages need no event. Exact: nothing reads the bit before the segment ends.
void HostKernel::next_arrival(HostQueue& q) {
  q.irq_arrivals.pop_front();
  const Core& c = core(q.core);
  if (c.running() == &q.hardirq) {
    while (!q.irq_arrivals.empty() && q.irq_arrivals.front().first < c.segment_end()) {
      q.apic_pending = true;
      q.irq_arrivals.pop_front();
    }
  }
  if (!q.irq_arrivals.empty())
    m_.eq->schedule_taken(q.irq_arrivals.front().first, q.irq_arrivals.front().second, irq_arrival_,
                          q.index | kListedArrival);
}

// ---- the vector, the thread and the timer, as a policy's env drives them ------------------

Duration HostKernel::mask_vector(HostQueue& q) {
  ++q.counters.masks;
  q.irq_disabled = true;  // lazy: the MSI-X entry is masked only if an interrupt comes
  return host().irq_disable;
}

Duration HostKernel::unmask_vector(HostQueue& q) {
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

Duration HostKernel::wake_thread(HostQueue& q) {
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

Duration HostKernel::arm_timer(HostQueue& q, Duration d) {
  m_.eq->schedule_in(max(d, Duration::zero()), &HostKernel::on_timer, this, q.timer.arm(q.index).pack());
  return host().hrtimer_arm;
}

void HostKernel::sleep_thread(HostQueue& q, Duration after) {
  m_.eq->schedule_in(after, &HostKernel::on_thread_wake, this, q.thread_sleep.arm(q.index).pack());
}

void HostKernel::on_thread_wake(void* self, uint64_t arg) {
  auto* k = static_cast<HostKernel*>(self);
  const sim::TimerToken token = sim::TimerToken::unpack(arg);
  HostQueue& q = k->queue(token.owner);
  if (!q.thread_sleep.current(token)) return;
  k->timer_expired(q.core, TimerExpiryItem{TimerExpiryItem::Kind::thread_wake, q.index});
}

// ---- hrtimer expiries ------------------------------------------------------------------------

void HostKernel::timer_expired(uint32_t c, TimerExpiryItem item) {
  if (host().timer_expiry == TimerExpiry::folded) {
    run_expiry(item);
    return;
  }
  CoreTimerInterrupt& t = timer_irqs_[c];
  t.expired.push_back(item);
  core(c).make_runnable(t.task);  // merges with a pending one; one in service runs again
}

void HostKernel::run_expiry(const TimerExpiryItem& item) {
  switch (item.kind) {
    case TimerExpiryItem::Kind::queue_timer:
      raise_softirq(queue(item.index).core, SoftirqItem{SoftirqItem::Kind::queue_timer, item.index});
      break;
    case TimerExpiryItem::Kind::drive_monitor:
      raise_softirq(topology().monitor_core(item.index), SoftirqItem{SoftirqItem::Kind::drive_monitor, item.index});
      break;
    case TimerExpiryItem::Kind::thread_wake: {
      HostQueue& q = queue(item.index);
      q.thread.woken = true;
      core(q.core).make_runnable(q.thread);
      break;
    }
  }
}

// ---- softirq work: expired policy timers and drive monitors --------------------------------

void HostKernel::raise_softirq(uint32_t c, SoftirqItem item) {
  CoreSoftirq& s = softirq(c);
  s.work.push_back(item);
  // Raised inside ksoftirqd's own run (in_interrupt): that run takes it.
  if (!s.ksoftirqd_in_segment) core(c).make_runnable(s.task);
}

void HostKernel::poll_again(HostQueue& q) {
  softirq(q.core).work.push_back(SoftirqItem{SoftirqItem::Kind::irq_poll_again, q.index, q.timer.arm(q.index).generation});
}

void HostKernel::complete_on(uint32_t c, uint32_t rid) {
  CoreSoftirq& s = softirq(c);
  const bool first = s.remote_done.empty();
  s.remote_done.push_back(rid);
  if (!first) return;
  ++s.completion_ipis;
  m_.eq->schedule_in(host().completion_ipi.latency, &HostKernel::on_completion_ipi, this, c);
}

// The IPI's handler raises BLOCK_SOFTIRQ, which finishes the requests on the list.
void HostKernel::on_completion_ipi(void* self, uint64_t c) {
  auto* k = static_cast<HostKernel*>(self);
  k->raise_softirq(static_cast<uint32_t>(c), SoftirqItem{SoftirqItem::Kind::block_done, static_cast<uint32_t>(c), 0});
}

void HostKernel::wake_ksoftirqd(uint32_t c) {
  CoreSoftirq& s = softirq(c);
  ++s.handed_to_ksoftirqd;
  if (!s.ksoftirqd.queued) s.ksoftirqd.woken = true;
  core(c).make_runnable(s.ksoftirqd);
}

void HostKernel::on_timer(void* self, uint64_t arg) {
  auto* k = static_cast<HostKernel*>(self);
  const sim::TimerToken token = sim::TimerToken::unpack(arg);
  HostQueue& q = k->queue(token.owner);
  if (!q.timer.current(token)) return;  // cancelled or re-armed
  k->timer_expired(q.core, TimerExpiryItem{TimerExpiryItem::Kind::queue_timer, q.index});
}

void HostKernel::on_monitor(void* self, uint64_t d) {
  auto* k = static_cast<HostKernel*>(self);
  const auto drive = static_cast<uint32_t>(d);
  k->timer_expired(k->topology().monitor_core(drive), TimerExpiryItem{TimerExpiryItem::Kind::drive_monitor, drive});
}

}  // namespace nvmesim
