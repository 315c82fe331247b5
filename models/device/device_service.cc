// The service: a fetched command in a parallel unit or on its flash target (service-time
// draws, the write path), its data over the PCIe link, its CQE posting time (completion
// rounds), or, with --replay-service, the times a recorded trace gives.
#include "models/device/device.h"

namespace nvmesim {

// Commands reach the units in front-end order, so reserving a unit for a command that
// is ready a little later is the same as a FIFO in front of the units.
void Device::start_unit(DeviceCommand c, Time ready) {
  if (!target_free_.empty()) {
    start_on_target(c, ready);
    return;
  }
  if (units_busy_ >= profile_.units) {
    unit_wait_.emplace_back(c.pack(), ready);
    return;
  }
  ++units_busy_;
  Duration s = (c.write ? write_time_ : read_time_).draw(rng_, c.bytes((*requests_)[c.cid]));
  stats_.unit_busy += Duration::ns(window_.in_ns(ready.ns(), (ready + s).ns()));
  ++stats_.waits;
  eq_->schedule(ready + s, unit_done_, c.pack());
}

void Device::on_unit_done(void* self, uint64_t arg) {
  auto* d = static_cast<Device*>(self);
  const DeviceCommand c = DeviceCommand::unpack(arg);
  --d->units_busy_;
  if (!d->unit_wait_.empty()) {
    auto [next, ready] = d->unit_wait_.front();
    d->unit_wait_.pop_front();
    Time start = max(ready, d->eq_->now());
    d->stats_.queue_wait += start - ready;
    d->start_unit(DeviceCommand::unpack(next), start);
  }
  d->finish_unit(c);
}

// A read waits for its flash target in the order reads reach it (front-end order, as for
// the pool), so its start is known now: one event, at its end, and no waiting list.
void Device::start_on_target(DeviceCommand c, Time ready) {
  if (c.write && writes_) {  // acknowledged once the write buffer has room for it
    if (writes_->admit(c.pack(), ready, c.bytes((*requests_)[c.cid]))) start_write(c, ready);
    return;
  }
  const Duration s = (c.write ? write_time_ : read_time_).draw(rng_, c.bytes((*requests_)[c.cid]));
  Time start = ready;
  if (!c.write) {
    const auto t = static_cast<uint32_t>(target_rng_.below(target_free_.size()));
    Time& free = target_free_[t];
    start = max(ready, free);
    if (writes_) writes_->read_waited(t, ready, start);
    free = start + min(s, profile_.media_read);
    stats_.unit_busy += Duration::ns(window_.in_ns(start.ns(), free.ns()));
    stats_.queue_wait += start - ready;
  }
  ++stats_.waits;
  eq_->schedule(start + s, target_done_, c.pack());
}

void Device::on_target_done(void* self, uint64_t arg) {
  auto* d = static_cast<Device*>(self);
  const DeviceCommand c = DeviceCommand::unpack(arg);
  if (c.write && d->writes_) {
    const Request& r = (*d->requests_)[c.cid];
    d->writes_->acknowledged(c.bytes(r), r.sequential);
  }
  d->finish_unit(c);
}

void Device::start_write(DeviceCommand c, Time start) {
  const Duration s = write_time_.draw(rng_, c.bytes((*requests_)[c.cid]));
  ++stats_.waits;
  eq_->schedule(start + s, target_done_, c.pack());
}

// A program or erase ended: its space goes to the writes waiting for it, in their order,
// and its target takes the next operation.
void Device::on_flash_done(void* self, uint64_t arg) {
  auto* d = static_cast<Device*>(self);
  d->writes_->finish(arg);
  const Time now = d->eq_->now();
  WriteBuffer::Waiting w;
  while (d->writes_->next_admitted(&w)) {
    const Time start = max(now, w.ready);
    d->writes_->count_buffer_wait(start - w.ready);
    d->start_write(DeviceCommand::unpack(w.command), start);
  }
  d->writes_->dispatch();
}

// A command's unit is done: its read data go to the host, then its CQE is posted.
void Device::finish_unit(DeviceCommand c) {
  Time done = eq_->now();
  if (times_) times_[c.cid].unit_done = done;
  // Read data is posted too and cannot pass the device's message still at the root
  // complex: it crosses the link into the root port's buffers and lands behind the
  // message (assumed: the port's posted-data credits cover the device's writes during
  // one wait; the CQE written behind it is held, hold_cqe, so the host sees neither early).
  // With the platform, an instant's reads take the link in an order of their own (by
  // queue), as their messages take the root complex: a replay that ends the same units at
  // the same instant in another event order posts them alike.
  if (!c.write && order_) {
    order_->arrivals().add(InterruptDelivery::key(index_, InterruptDelivery::kData, c.qid), &Device::on_read_data, this,
                           c.pack());
    return;
  }
  if (!c.write) done = link_.to_host(c.bytes((*requests_)[c.cid]), done);  // read data to host
  post_after_data(c, done);
}

void Device::on_read_data(void* self, uint64_t arg) {
  auto* d = static_cast<Device*>(self);
  const DeviceCommand c = DeviceCommand::unpack(arg);
  d->post_after_data(c, d->link_.to_host(c.bytes((*d->requests_)[c.cid]), d->eq_->now()));
}

// With completion rounds (profile completion_round): the round boundary a CQE ready at
// `post` goes out at, no earlier than a round already taken, and the next one when that
// round holds completion_round_max.
Time Device::round_post(Time post) {
  const int64_t r = profile_.completion_round.count_ns();
  Time at = Time::from_ns((post.ns() + r - 1) / r * r);
  if (profile_.completion_round_max == 0) return at;
  if (at < round_at_) at = round_at_;
  if (at == round_at_ && round_posts_ >= profile_.completion_round_max) at = at + profile_.completion_round;
  if (at != round_at_) {
    round_at_ = at;
    round_posts_ = 0;
  }
  ++round_posts_;
  return at;
}

void Device::post_after_data(DeviceCommand c, Time done) {
  Time post = done + profile_.cqe_post;
  if (profile_.completion_round > Duration::zero()) post = round_post(post);
  if (replayed_) post = max(post, replayed_->not_before(times_[c.cid]));  // unposted when its trace ended
  schedule_post(c.cid, c.qid, post);
}

// When a replayed command's unit ends on the platform (replays_unit). Recorded: when it
// did. Seen unposted when the trace's window closed: when the trace saw its unit end, or,
// if it did not see that, a drawn time but no earlier than the window's end. A recorded end
// is kept even if the replay's front end reached the command later (`ready`, not before
// now): the trace does not say in which order a batch's commands sat in their SQ, and the
// replay's order may differ.
Time Device::replayed_unit_end(uint32_t cid, Time ready) {
  const RequestTimes& t = times_[cid];
  if (replayed_->recorded(t)) return max(eq_->now(), replayed_->unit_done(t));
  const Time seen_done = replayed_->unit_done_unposted(t);
  if (seen_done != Time::never()) return max(eq_->now(), seen_done);
  const Request& r = (*requests_)[cid];
  return max(ready + (r.write ? write_time_ : read_time_).draw(rng_, r.bytes), replayed_->not_before(t));
}

void Device::on_replayed_unit_done(void* self, uint64_t arg) {
  static_cast<Device*>(self)->finish_unit(DeviceCommand::unpack(arg));
}

// The model's device knows a posting once the command's unit is done; from then on a host
// reaper may find the CQE early (post_due). A replayed posting becomes known as long before
// it as recorded (unit_done_ns), or else by the CQE write and, for a read, the data's
// uncontended transfer: a read that waited for a shared link is then known too late.
void Device::replay_post(uint32_t cid, Time fetched) {
  const Request& r = (*requests_)[cid];
  RequestTimes& t = times_[cid];
  t.posted = replayed_->posting(t, fetched);
  Duration ahead = replayed_->known_ahead(t);
  if (ahead < Duration::zero()) {
    ahead = profile_.cqe_post;
    if (!r.write) ahead += Duration::ns((link_.transfer_ps(r.bytes) + ps::kPerNs - 1) / ps::kPerNs);
  }
  eq_->schedule(max(fetched, t.posted - ahead), &Device::on_replayed_known, this, cid);
}

void Device::on_replayed_known(void* self, uint64_t cid64) {
  auto* d = static_cast<Device*>(self);
  auto cid = static_cast<uint32_t>(cid64);
  RequestTimes& t = d->times_[cid];
  t.unit_done = d->eq_->now();
  d->schedule_post(cid, (*d->requests_)[cid].qid, t.posted);
}

// The link moves the data in no less than its transfer time (link_transfer rounds its end up).
Duration Device::read_post_delay(uint32_t bytes) const {
  return profile_.cqe_post + Duration::ns(link_.transfer_ps(bytes) / ps::kPerNs);
}

}  // namespace nvmesim
