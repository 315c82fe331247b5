#include "models/system/run_observer.h"

#include <variant>

namespace nvmesim {

// ---- the measured window ---------------------------------------------------------------

CoreTimes RunObserver::busy_now(uint32_t c) const {
  Core& core = *(*m_.cores)[c];
  core.flush_accounting();  // the running segment's time so far goes to its context
  CoreTimes t;
  for (int l = 0; l < kContexts; ++l) t.busy[l] = core.busy(static_cast<Context>(l));
  return t;
}

void RunObserver::start_window() {
  measuring_ = true;
  core_at_start_.resize(m_.cores->size());
  for (uint32_t c = 0; c < m_.cores->size(); ++c) core_at_start_[c] = busy_now(c);
  counters_at_start_.clear();
  lazy_masked_at_start_.clear();
  for (const auto& q : *m_.queues) {
    counters_at_start_.push_back(q->counters);
    lazy_masked_at_start_.push_back(q->lazy_masked);
  }
  device_at_start_.clear();
  for (const auto& d : *m_.devices) device_at_start_.push_back(d->stats());
}

void RunObserver::finish_window() {
  measuring_ = false;
  core_at_end_.resize(m_.cores->size());
  for (uint32_t c = 0; c < m_.cores->size(); ++c) core_at_end_[c] = busy_now(c);
}

policy::QueueCounters RunObserver::queue_counters(uint32_t q) const {
  return (*m_.queues)[q]->counters - counters_at_start_[q];
}

uint64_t RunObserver::queue_lazy_masked(uint32_t q) const {
  return (*m_.queues)[q]->lazy_masked - lazy_masked_at_start_[q];
}

DeviceStats RunObserver::device_stats(uint32_t d) const { return (*m_.devices)[d]->stats() - device_at_start_[d]; }

CoreTimes RunObserver::core_times(uint32_t c) const {
  CoreTimes t;
  for (int l = 0; l < kContexts; ++l) t.busy[l] = core_at_end_[c].busy[l] - core_at_start_[c].busy[l];
  return t;
}

// ---- the Perfetto trace ------------------------------------------------------------------

namespace {
constexpr uint32_t kCoresProcess = 1;
constexpr uint32_t kQueuesProcess = 2;
}  // namespace

void RunObserver::enable_trace(sim::TraceRecorder* trace) {
  trace_ = trace;
  mode_since_.assign(m_.queues->size(), Time::zero());
  trace->name_process(kCoresProcess, "cores");
  trace->name_process(kQueuesProcess, "queues (mode)");
  for (uint32_t c = 0; c < m_.cores->size(); ++c) {
    trace->name_track(kCoresProcess, c, "cpu" + std::to_string(c));
    (*m_.cores)[c]->set_tracer(this, &RunObserver::on_ran);
  }
  for (const auto& q : *m_.queues)
    trace->name_track(kQueuesProcess, q->index, queue_label(*q) + " (cpu" + std::to_string(q->core) + ")");
}

std::string RunObserver::queue_label(const HostQueue& q) const {
  return m_.scenario->drives[q.drive].name + "q" + std::to_string(q.qid + 1);
}

void RunObserver::on_ran(void* self, const Task& t, Time start, Time end) {
  auto* o = static_cast<RunObserver*>(self);
  if (!o->trace_->wants(start, end)) return;
  std::string name;
  const char* cat = "app";
  switch (t.context) {
    case Context::app: {
      if (t.ksoftirqd) {
        name = "ksoftirqd/" + std::to_string(t.core);
        cat = "softirq";
        break;
      }
      const Job& j = (*o->m_.jobs)[t.index];
      static constexpr const char* kSeg[] = {"", "submit", "reap", "wait", "poll", "idle"};
      name = j.spec->name + "#" + std::to_string(j.clone) + " " + kSeg[static_cast<int>(j.seg)];
      break;
    }
    case Context::hardirq:
      name = t.timer_irq ? "local timer" : "irq " + o->queue_label(*(*o->m_.queues)[t.index]);
      cat = "hardirq";
      break;
    case Context::softirq: {
      const SoftirqItem item = (*o->m_.softirqs)[t.index].current;
      name = item.kind == SoftirqItem::Kind::drive_monitor
                 ? "monitor " + o->m_.scenario->drives[item.index].name
                 : "timer/irq_poll " + o->queue_label(*(*o->m_.queues)[item.index]);
      cat = "softirq";
      break;
    }
    case Context::irq_thread:
      name = "irq/" + o->queue_label(*(*o->m_.queues)[t.index]);
      cat = "irq_thread";
      break;
  }
  o->trace_->slice(kCoresProcess, t.core, start, end, name, cat);
}

void RunObserver::queue_counters_changed(const HostQueue& q, Time now) {
  if (!trace_->wants(now)) return;
  std::string label = queue_label(q);
  trace_->counter(kQueuesProcess, label + " inflight", now, "inflight", nvme::driver_inflight(q.sq, q.cq));
  trace_->counter(kQueuesProcess, label + " cq", now, "cqes", (*m_.devices)[q.drive]->cq_pending(q.qid, q.cq.head));
}

void RunObserver::queue_mode_ended(const HostQueue& q, std::string_view from, Time now) {
  trace_->slice(kQueuesProcess, q.index, mode_since_[q.index], now, std::string(from), "mode");
  mode_since_[q.index] = now;
}

void RunObserver::finish_trace(Time now) {
  if (!trace_) return;
  for (const auto& q : *m_.queues)
    queue_mode_ended(*q, std::visit([](const auto& p) { return p.mode(); }, q->policy), now);
}

// ---- the per-command trace ---------------------------------------------------------------

void RunObserver::command_reaped(const HostQueue& q, uint32_t cid, Time seen, Context ctx, Time now) {
  const Request& r = (*m_.requests)[cid];
  const RequestTimes& times = times_[cid];
  if (replayed_) (*replayed_)[times.command].seen = seen;
  if (!cmd_trace_) return;
  if (last_seen_.empty()) last_seen_.assign(m_.requests->size(), Time::never());
  last_seen_[cid] = seen;
  if (!cmd_trace_->wants(seen) && seen >= cmd_trace_->to()) add_inflight(cid, r);
  trace::CommandRecord c;
  c.queue = q.qid + 1;
  c.cid = cid;
  c.op = r.write ? trace::Op::write : trace::Op::read;
  c.lba = 0;  // the model has no addresses
  c.blocks = r.bytes / 512;
  c.submit = r.submitted;
  c.doorbell = times.doorbell;
  c.cqe_posted = times.posted;
  c.unit_done = times.unit_done;
  c.cqe_seen = seen;
  if (ctx == Context::hardirq) c.irq = now;
  c.completed_by = ctx;
  cmd_trace_->add(seen, c);
}

// Only a command submitted inside the window; only the times the window reached.
void RunObserver::add_inflight(uint32_t cid, const Request& r) {
  const Time from = cmd_trace_->from(), to = cmd_trace_->to();
  if (r.submitted < from || r.submitted >= to) return;
  trace::InflightRecord f;
  f.queue = (*m_.queues)[r.queue]->qid + 1;
  f.cid = cid;
  f.op = r.write ? trace::Op::write : trace::Op::read;
  f.blocks = r.bytes / 512;
  f.submit = r.submitted;
  // A request's times are overwritten per use: older than this submission means not yet.
  const RequestTimes& t = times_[cid];
  if (t.doorbell >= r.submitted && t.doorbell < to) f.doorbell = t.doorbell;
  if (f.doorbell && t.posted >= t.doorbell && t.posted < to && t.unit_done >= t.doorbell) {
    f.cqe_posted = t.posted;
    f.unit_done = t.unit_done;
  } else if (f.doorbell && t.unit_done >= t.doorbell && t.unit_done < to) {
    f.unit_done = t.unit_done;  // its unit finished, its CQE not yet posted (a line's wait)
  }
  cmd_trace_->add_inflight(f);
}

void RunObserver::finish_command_trace() {
  if (!cmd_trace_) return;
  if (last_seen_.empty()) last_seen_.assign(m_.requests->size(), Time::never());
  std::vector<bool> in_use(m_.requests->size(), true);
  for (const Job& j : *m_.jobs)
    for (uint32_t rid : j.free_reqs) in_use[rid] = false;
  for (uint32_t rid = 0; rid < in_use.size(); ++rid) {
    const Request& r = (*m_.requests)[rid];
    // In use and not seen since its submission (a seen one waits for the application).
    if (in_use[rid] && (last_seen_[rid] == Time::never() || last_seen_[rid] < r.submitted)) add_inflight(rid, r);
  }
}

void RunObserver::replayed_command_reaped(uint32_t rid, Time now) {
  const RequestTimes& times = times_[rid];
  ReplayedTimes& t = (*replayed_)[times.command];
  t.submit = (*m_.requests)[rid].submitted;
  t.doorbell = times.doorbell;
  t.posted = times.posted;
  t.reaped = now;
}

void RunObserver::hard_irq(const HostQueue& q, Time now, uint32_t cqes, bool held) {
  cmd_trace_->add(now, trace::IrqRecord{q.qid + 1, now, cqes, held});
}

void RunObserver::mode_change(const HostQueue* q, Time now, std::string_view from, std::string_view to,
                              const std::string& reason) {
  if (q && trace_) queue_mode_ended(*q, from, now);
  if (cmd_trace_)
    cmd_trace_->add(now, trace::ModeRecord{q ? q->qid + 1 : 0, now, std::string(from), std::string(to), reason});
}

}  // namespace nvmesim
