#include "hw/runner/results/queue_recorder.h"

#include <algorithm>

namespace nvmesim::hw {

QueueRecorder::QueueRecorder(uint16_t qid, Time measure_from, Time measure_to, size_t trace_limit)
    : qid_(qid), measure_from_(measure_from), measure_to_(measure_to), trace_limit_(trace_limit) {
  commands_.reserve(std::min<size_t>(trace_limit_, 1u << 16));
}

void QueueRecorder::completion(uint16_t cid, const OutstandingCommand& r, uint16_t status, Time seen,
                               Time irq_at, trace::Context by, const CommandTable& still_outstanding) {
  ++completed_;
  if (status) ++errors_;
  if (r.submit >= measure_from_ && seen < measure_to_) {
    ++measured_;
    latency_.record((seen - r.submit).count_ns());
  }
  if (commands_.size() >= trace_limit_) {
    ++trace_dropped_;
    if (!trace_closed_) {
      // This command and every one still outstanding were in flight when the window closed.
      add_inflight(seen, cid, r);
      close_trace(seen, still_outstanding);
      std::sort(inflight_.begin(), inflight_.end(), [](const auto& a, const auto& b) { return a.cid < b.cid; });
    }
    return;
  }
  trace::CommandRecord c;
  c.queue = qid_;
  c.cid = cid;
  c.op = r.op;
  c.lba = r.lba;
  c.blocks = r.blocks;
  c.submit = r.submit;
  c.doorbell = r.doorbell;
  c.cqe_seen = seen;
  if (irq_at != Time::never()) c.irq = irq_at;
  c.completed_by = by;
  c.status = status;
  commands_.push_back(c);
}

void QueueRecorder::close_trace(Time at, const CommandTable& outstanding) {
  if (trace_closed_) return;
  trace_closed_ = true;
  outstanding.for_each_outstanding([&](uint16_t cid, const OutstandingCommand& r) { add_inflight(at, cid, r); });
}

void QueueRecorder::add_inflight(Time at, uint16_t cid, const OutstandingCommand& r) {
  trace::InflightRecord f;
  f.queue = qid_;
  f.cid = cid;
  f.op = r.op;
  f.lba = r.lba;
  f.blocks = r.blocks;
  f.at = at;
  f.submit = r.submit;
  if (r.doorbell <= at) f.doorbell = r.doorbell;  // never (not rung) stays empty
  // cqe_posted and unit_done stay empty: the host cannot see them (as on cmd rows).
  inflight_.push_back(f);
}

void QueueRecorder::interrupt(Time at, uint32_t cqes) {
  if (irqs_.size() < trace_limit_) irqs_.push_back({qid_, at, cqes, false});
}

void QueueRecorder::held_interrupt(Time at) {
  ++held_;
  if (irqs_.size() < trace_limit_) irqs_.push_back({qid_, at, 0, true});
}

void QueueRecorder::mode_change(Time at, std::string_view from, std::string_view to, std::string reason) {
  if (modes_.size() < trace_limit_)
    modes_.push_back({qid_, at, std::string(from), std::string(to), std::move(reason)});
}

}  // namespace nvmesim::hw
