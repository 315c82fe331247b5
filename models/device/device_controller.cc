// The controller: SQ and CQ doorbells, the SQEs fetched in round-robin arbitration, the
// command-processing front end (the IOPS ceiling), and the admin commands that set
// coalescing.
#include "models/device/device.h"

namespace nvmesim {

void Device::cq_doorbell(uint32_t qid, uint32_t head) {
  SqState& q = queues_[qid];
  q.cq.host_head = head;
  vectors_.cq_consumed(q.vector);
}

void Device::sq_doorbell(uint32_t qid, uint32_t tail) {
  // The posted write reaches the controller, which then fetches the new SQEs.
  const uint64_t arg = (static_cast<uint64_t>(qid) << 32) | tail;
  if (profile_.sq_fetch == Duration::zero()) {
    on_doorbell_seen(this, arg);  // seen at once: no event of its own
    return;
  }
  eq_->schedule(eq_->now() + profile_.sq_fetch, doorbell_seen_, arg);
}

void Device::on_doorbell_seen(void* self, uint64_t arg) {
  auto* d = static_cast<Device*>(self);
  auto qid = static_cast<uint32_t>(arg >> 32);
  SqState& q = d->queues_[qid];
  q.tail = static_cast<uint32_t>(arg);
  if (!q.in_rr && q.fetch_head != q.tail) {
    q.in_rr = true;
    d->rr_.push_back(qid);
  }
  // An idle front end takes its turn now rather than in an event of its own at this same
  // time: one event fewer per doorbell on a lightly loaded drive.
  if (!d->fe_scheduled_ && ps::to_time_ceil(d->fe_free_ps_) <= d->eq_->now()) {
    d->front_end_turn();
    return;
  }
  d->kick_front_end();
}

void Device::kick_front_end() {
  if (fe_scheduled_ || rr_.empty()) return;
  fe_scheduled_ = true;
  Time at = max(eq_->now(), ps::to_time_ceil(fe_free_ps_));
  eq_->schedule(at, front_end_, 0);
}

// One arbitration turn: up to `arbitration_burst` commands from the next SQ in round
// robin, each occupying the front end for 1/iops_max.
void Device::on_front_end(void* self, uint64_t) {
  auto* d = static_cast<Device*>(self);
  d->fe_scheduled_ = false;
  d->front_end_turn();
}

void Device::front_end_turn() {
  if (rr_.empty()) return;
  if (rr_pos_ >= rr_.size()) rr_pos_ = 0;
  uint32_t qid = rr_[rr_pos_];
  SqState& q = queues_[qid];
  write_landed_held(q);  // a held CQE takes the SQ head of when it lands: before this turn moves it
  int64_t now_ps = eq_->now().ns() * ps::kPerNs;
  if (fe_free_ps_ < now_ps) fe_free_ps_ = now_ps;
  // The burst's requests were last written at submission: fetch them all before the
  // first is read, so their cache misses overlap.
  for (uint32_t i = 0, h = q.fetch_head; i < profile_.arbitration_burst && h != q.tail; ++i) {
    __builtin_prefetch(&(*requests_)[q.mem->sq[h]]);
    h = h + 1 == q.depth ? 0 : h + 1;
  }
  uint32_t taken = 0;
  while (taken < profile_.arbitration_burst && q.fetch_head != q.tail) {
    uint32_t cid = q.mem->sq[q.fetch_head];
    q.fetch_head = q.fetch_head + 1 == q.depth ? 0 : q.fetch_head + 1;
    fe_free_ps_ = ps::add(fe_free_ps_, fe_gap_ps_);
    stats_.front_end_busy_ps += window_.in_ps(fe_free_ps_ - fe_gap_ps_, fe_free_ps_);
    Time ready = ps::to_time_ceil(fe_free_ps_);
    const Request& r = (*requests_)[cid];
    if (replays_unit(cid)) {  // the unit ends when it did, without taking one of the model's
      eq_->schedule(replayed_unit_end(cid, ready), &Device::on_replayed_unit_done, this, DeviceCommand::of(cid, r).pack());
    } else if (replayed_ && replayed_->recorded(times_[cid])) {
      replay_post(cid, ready);
    } else {
      if (r.write) ready = link_.to_device(r.bytes, ready);  // data to the device first
      start_unit(DeviceCommand::of(cid, r), ready);
    }
    ++taken;
  }
  if (q.fetch_head == q.tail) {
    q.in_rr = false;
    rr_.erase(rr_.begin() + static_cast<std::ptrdiff_t>(rr_pos_));
  } else {
    ++rr_pos_;
  }
  kick_front_end();
}

// Admin commands complete after `admin_command`; arg packs (kind, vector/thr, value).
void Device::admin_set_coalescing(uint32_t thr, uint32_t time_100us) {
  ++stats_.admin_commands;
  uint64_t arg = (uint64_t{1} << 62) | (static_cast<uint64_t>(thr & 0xff) << 8) | (time_100us & 0xff);
  eq_->schedule_in(profile_.admin_command, &Device::on_admin_done, this, arg);
}

void Device::admin_set_vector_coalescing_disabled(uint32_t vector, bool disabled) {
  ++stats_.admin_commands;
  uint64_t arg = (uint64_t{2} << 62) | (static_cast<uint64_t>(vector) << 1) | (disabled ? 1 : 0);
  eq_->schedule_in(profile_.admin_command, &Device::on_admin_done, this, arg);
}

void Device::on_admin_done(void* self, uint64_t arg) {
  auto* d = static_cast<Device*>(self);
  uint64_t kind = arg >> 62;
  if (kind == 1) {
    d->vectors_.set_coalescing(static_cast<uint32_t>((arg >> 8) & 0xff), static_cast<uint32_t>(arg & 0xff));
  } else if (kind == 2) {
    auto vector = static_cast<uint32_t>((arg & ((uint64_t{1} << 62) - 1)) >> 1);
    d->vectors_.set_coalescing_disabled(vector, (arg & 1) != 0);
  }
}

}  // namespace nvmesim
