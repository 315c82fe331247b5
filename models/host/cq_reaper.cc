#include "models/host/cq_reaper.h"

namespace nvmesim {

Duration CqReaper::cqe_cost(Context ctx) const {
  if (host_->cqe_cost == CqeCost::same_code) return host_->cqe_work;
  return ctx == Context::hardirq ? host_->irq_per_cqe : host_->poll_per_cqe;
}

Duration CqReaper::cold_start(HostQueue& q) const {
  if (host_->cqe_cost != CqeCost::same_code || !q.reaper_cold) return Duration::zero();
  q.reaper_cold = false;
  return host_->cqe_cold;
}

CqReaper::Reaped CqReaper::reap(HostQueue& q, Context ctx, Time now, Time at, uint32_t budget) {
  const Duration per_cqe = cqe_cost(ctx);
  Device& dev = *(*devices_)[q.drive];
  const bool trace_commands = obs_->watches_commands();
  const std::size_t first = q.drained.size();
  Time t = at;
  uint32_t n = 0;
  while (n < budget && (cqe_pending(q) || dev.post_due(q.qid, t))) {
    const CqEntry& e = q.mem.cq[q.cq.head];
    q.drained.push_back(e.cid);
    if (trace_commands) obs_->command_reaped(q, e.cid, t, ctx, now);
    q.sq.head = e.sqhd;
    q.cq.advance();
    t += per_cqe;
    ++n;
  }
  if (n == 0) return {};
  Reaped r{n, per_cqe * n + host_->doorbell_mmio};
  r.cost += cold_start(q);
  r.cost += delivery_->cost(q, first, ctx);
  if (q.latencies) delivery_->add_latencies(q, first, at);
  dev.cq_doorbell(q.qid, q.cq.head);  // one CQ head doorbell per drain
  HostDrive& drive = (*drives_)[q.drive];
  drive.inflight_add(now, -static_cast<int64_t>(n));
  drive.completions += n;
  q.counters.completions += n;
  if (obs_->tracing()) obs_->queue_counters_changed(q, now);
  return r;
}

}  // namespace nvmesim
