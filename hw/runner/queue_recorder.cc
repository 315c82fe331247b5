#include "hw/runner/queue_recorder.h"

#include <algorithm>

namespace nvmesim::hw {

QueueRecorder::QueueRecorder(uint16_t qid, Time measure_from, Time measure_to, size_t trace_limit)
    : qid_(qid), measure_from_(measure_from), measure_to_(measure_to), trace_limit_(trace_limit) {
  commands_.reserve(std::min<size_t>(trace_limit_, 1u << 16));
}

void QueueRecorder::completion(uint16_t cid, const OutstandingCommand& r, uint16_t status, Time seen,
                               Time irq_at, trace::Context by) {
  ++completed_;
  if (status) ++errors_;
  if (r.submit >= measure_from_ && seen < measure_to_) {
    ++measured_;
    latency_.record((seen - r.submit).count_ns());
  }
  if (commands_.size() >= trace_limit_) {
    ++trace_dropped_;
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
