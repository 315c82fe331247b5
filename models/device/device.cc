#include "models/device/device.h"

#include <algorithm>
#include <cassert>

namespace nvmesim {

Device::Device(sim::EventQueue& eq, const DeviceProfile& profile, uint32_t index, uint64_t seed,
               MsixSink sink, std::vector<Request>& requests)
    : eq_(&eq),
      doorbell_seen_(eq.bind(&Device::on_doorbell_seen, this)),
      front_end_(eq.bind(&Device::on_front_end, this)),
      unit_done_(eq.bind(&Device::on_unit_done, this)),
      target_done_(eq.bind(&Device::on_target_done, this)),
      cqe_post_(eq.bind(&Device::on_cqe_post, this)),
      port_turn_(eq.bind(&Device::on_port_turn, this)),
      flash_done_(eq.bind(&Device::on_flash_done, this)),
      profile_(profile),
      index_(index),
      rng_(seed, sim::stream_key("device", index)),
      sink_(sink),
      requests_(&requests),
      read_time_(profile.read),
      write_time_(profile.write),
      vectors_(eq, profile, this, &Device::emit),
      link_(profile.link_bytes_per_s),
      target_rng_(seed, sim::stream_key("flash_target", index)) {
  fe_gap_ps_ = profile.iops_max > 0 ? ps::clamp(1e12 / profile.iops_max) : 0;
  if (profile.media_read > Duration::zero()) target_free_.assign(profile.units, Time{});
  // profile_, not profile: FlashWrites keeps a pointer to it.
  if (profile.write_path() && !target_free_.empty())
    writes_.emplace(profile_, target_free_, eq, flash_done_, window_, seed, index);
}

uint32_t Device::add_queue(QueueMemory* mem, uint32_t depth, uint32_t vector, bool interrupts_enabled) {
  SqState q;
  q.mem = mem;
  q.depth = depth;
  q.cq.depth = depth;
  q.vector = vector;
  queues_.push_back(q);
  vectors_.add_cq(vector, interrupts_enabled);
  return static_cast<uint32_t>(queues_.size() - 1);
}

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
    if (replays_unit(r)) {  // the unit ends when it did, without taking one of the model's
      eq_->schedule(replayed_unit_end(r, ready), &Device::on_replayed_unit_done, this, DeviceCommand::of(cid, r).pack());
    } else if (replayed_ && replayed_->recorded(r)) {
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
  if (record_times_) (*requests_)[c.cid].unit_done = done;
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
  const Request& r = (*requests_)[c.cid];
  Time post = done + profile_.cqe_post;
  if (profile_.completion_round > Duration::zero()) post = round_post(post);
  if (replayed_) post = max(post, replayed_->not_before(r));  // unposted when its trace ended
  schedule_post(c.cid, c.qid, post);
}

// When a replayed command's unit ends on the platform (replays_unit). Recorded: when it
// did. Seen unposted when the trace's window closed: when the trace saw its unit end, or,
// if it did not see that, a drawn time but no earlier than the window's end. A recorded end
// is kept even if the replay's front end reached the command later (`ready`, not before
// now): the trace does not say in which order a batch's commands sat in their SQ, and the
// replay's order may differ.
Time Device::replayed_unit_end(const Request& r, Time ready) {
  if (replayed_->recorded(r)) return max(eq_->now(), replayed_->unit_done(r));
  const Time seen_done = replayed_->unit_done_unposted(r);
  if (seen_done != Time::never()) return max(eq_->now(), seen_done);
  return max(ready + (r.write ? write_time_ : read_time_).draw(rng_, r.bytes), replayed_->not_before(r));
}

void Device::on_replayed_unit_done(void* self, uint64_t arg) {
  static_cast<Device*>(self)->finish_unit(DeviceCommand::unpack(arg));
}

// The model's device knows a posting once the command's unit is done; from then on a host
// reaper may find the CQE early (post_due). A replayed posting becomes known as long before
// it as recorded (unit_done_ns), or else by the CQE write and, for a read, the data's
// uncontended transfer: a read that waited for a shared link is then known too late.
void Device::replay_post(uint32_t cid, Time fetched) {
  Request& r = (*requests_)[cid];
  r.posted = replayed_->posting(r, fetched);
  Duration ahead = replayed_->known_ahead(r);
  if (ahead < Duration::zero()) {
    ahead = profile_.cqe_post;
    if (!r.write) ahead += Duration::ns((link_.transfer_ps(r.bytes) + ps::kPerNs - 1) / ps::kPerNs);
  }
  eq_->schedule(max(fetched, r.posted - ahead), &Device::on_replayed_known, this, cid);
}

void Device::on_replayed_known(void* self, uint64_t cid64) {
  auto* d = static_cast<Device*>(self);
  auto cid = static_cast<uint32_t>(cid64);
  (*d->requests_)[cid].unit_done = d->eq_->now();
  const Request& r = (*d->requests_)[cid];
  d->schedule_post(cid, r.qid, r.posted);
}

void Device::schedule_post(uint32_t cid, uint32_t qid, Time post) {
  if (record_times_) (*requests_)[cid].posted = post;
  // Keep the queue's postings in time order (reads wait for the link, writes do not);
  // equal times stay in scheduling order, as their events do.
  queues_[qid].posts.insert_sorted({post, cid}, [](const auto& a, const auto& b) { return a.first < b.first; });
  eq_->schedule(post, cqe_post_, (static_cast<uint64_t>(qid) << 32) | cid);
}

void Device::write_cqe(SqState& q, uint32_t cid) {
  uint8_t phase = 0;
  uint32_t slot = q.cq.post(&phase);  // asserts the CQ is not full: the host bounds inflight
  q.mem->cq[slot] = CqEntry{cid, q.fetch_head, phase};
  ++stats_.commands;
}

bool Device::post_due(uint32_t qid, Time by) {
  SqState& q = queues_[qid];
  if (!q.held.empty()) {  // written behind a message: visible in order, once it has left
    if (q.held.front().at > by) return false;
    const uint32_t cid = q.held.front().cid;
    q.held.pop_front();
    write_cqe(q, cid);
    return true;
  }
  if (q.waiting > 0) return false;  // the next in the ring waits for a message not yet sent
  if (q.posts.empty() || q.posts.front().first > by) return false;
  uint32_t cid = q.posts.front().second;
  if (order_ && !replayed_posting(cid) && (unsent_messages() || order_->visible_from(q.posts.front().first) > by))
    return false;
  q.posts.pop_front();
  write_cqe(q, cid);
  return true;
}

// The link moves the data in no less than its transfer time (link_transfer rounds its end up).
Duration Device::read_post_delay(uint32_t bytes) const {
  return profile_.cqe_post + Duration::ns(link_.transfer_ps(bytes) / ps::kPerNs);
}

Time Device::next_scheduled_cqe(uint32_t qid) const {
  const SqState& q = queues_[qid];
  Time next = Time::never();
  if (!q.posts.empty()) next = q.posts.front().first;
  const uint32_t landed = landed_held(q);  // in memory already: not scheduled
  if (landed < q.held.size()) next = min(next, q.held[landed].at);
  // Behind a message not yet sent: no earlier than the port's current one leaves.
  if (q.waiting > 0) next = min(next, max(eq_->now(), order_->visible_from(Time::zero())));
  return next;
}

void Device::on_cqe_post(void* self, uint64_t arg) {
  auto* d = static_cast<Device*>(self);
  auto cid = static_cast<uint32_t>(arg);
  SqState& q = d->queues_[arg >> 32];  // the queue travels in the argument: the Request is cold
  d->write_landed_held(q);  // what landed before this posting is in the ring first
  // Written already if a host reaper reached it first (post_due); the interrupt is sent
  // at the posting time either way.
  if (!q.posts.empty() && q.posts.front().second == cid) {
    q.posts.pop_front();
    const Time now = d->eq_->now();
    if (!d->order_ || d->replayed_posting(cid)) {
      d->write_cqe(q, cid);
    } else if (d->unsent_messages()) {  // behind a message whose turn has not come
      d->waiting_cqes_.push_back({static_cast<uint32_t>(arg >> 32), cid, d->messages_emitted_});
      ++q.waiting;
      ++d->stats_.cqe_writes_stalled;
    } else if (d->order_->stalls(now) || !q.held.empty()) {
      ++d->stats_.cqe_writes_stalled;
      d->hold_cqe(q, cid, d->order_->visible_from(now));
    } else {
      d->write_cqe(q, cid);
    }
  }
  d->vectors_.signal(q.vector);
}

// The CQE write is emitted behind the drive's messages still at its root complex: it lands
// at `at`, when they have left (or earlier through post_due, if a reaper gets there after
// that time).
// No event writes it: it lands at `at`, and whoever looks at the ring before a reaper takes
// it (post_due) writes it as that event would have (write_landed_held), or counts it
// (landed_held). The event's sequence number is still taken, so that every other event
// keeps its place among equal times.
void Device::hold_cqe(SqState& q, uint32_t cid, Time at) {
  if (record_times_) (*requests_)[cid].posted = at;
  q.held.push_back(SqState::HeldCqe{at, eq_->take_seq(), cid});
}

uint32_t Device::landed_held(const SqState& q) const {
  uint32_t n = 0;
  while (n < q.held.size() && landed(q.held[n])) ++n;
  return n;
}

void Device::write_landed_held(SqState& q) {
  while (!q.held.empty() && landed(q.held.front())) {
    const uint32_t cid = q.held.front().cid;
    q.held.pop_front();
    write_cqe(q, cid);
  }
}

void Device::emit(void* self, uint32_t vector) {
  auto* d = static_cast<Device*>(self);
  ++d->stats_.msix_messages;
  if (!d->order_) {
    d->sink_.message(d->sink_.self, d->index_, vector, Duration::zero(), false);
    return;
  }
  d->emit_ordered(vector);
}

void Device::emit_ordered(uint32_t vector) {
  ++messages_emitted_;
  // The port's message has left and none waits behind it (else the next one's turn is
  // due, and this one goes behind it): the port is free.
  if (port_busy_ && port_sent_ && port_messages_.empty() && !order_->stalls(eq_->now())) port_busy_ = false;
  if (port_busy_) {  // behind the port's message at the root complex
    if (port_messages_.empty() && port_sent_) next_turn(order_->visible_from(eq_->now()), vector);
    port_messages_.push_back(vector);
    return;
  }
  present(vector);
}

// The message at the head of the port reaches the root complex now; the socket's messages
// of this instant reach the platform in their own order (SameTimeOrder).
void Device::present(uint32_t vector) {
  port_busy_ = true;
  port_sent_ = false;
  order_->arrivals().add(InterruptDelivery::key(index_, InterruptDelivery::kMessage, vector), &Device::on_platform_message,
                         this, vector);
}

void Device::on_platform_message(void* self, uint64_t vector) {
  auto* d = static_cast<Device*>(self);
  const Time now = d->eq_->now();
  const bool posted = d->order_->posted();
  const InterruptTimes t = posted ? d->order_->post(now) : d->order_->send(now);
  d->count_delivery(t);
  d->message_sent(t.leaves);
  d->sink_.message(d->sink_.self, d->index_, static_cast<uint32_t>(vector), t.at_apic - now, posted);
}

void Device::count_delivery(const InterruptTimes& t) {
  stats_.remapping_busy_ns += window_.in_ns(t.unit_done.ns() - t.unit_ns, t.unit_done.ns());
  stats_.socket_busy_ns += window_.in_ns(t.leaves.ns(), t.leaves.ns() + t.socket_ns);
}

void Device::measure_window(Time from, Time to) {
  window_.set(from, to);
  link_.measure_window(window_);
}

void Device::message_sent(Time leaves) {
  port_sent_ = true;
  ++messages_sent_;
  // The CQEs written behind it (and behind the ones before it) land when it leaves.
  while (!waiting_cqes_.empty() && waiting_cqes_.front().behind <= messages_sent_) {
    const WaitingCqe w = waiting_cqes_.front();
    waiting_cqes_.pop_front();
    SqState& q = queues_[w.qid];
    assert(q.waiting > 0 && "a waiting CQE is counted by its queue");
    --q.waiting;
    hold_cqe(q, w.cid, leaves);  // counted as stalled when it began to wait
  }
  if (!port_messages_.empty()) next_turn(leaves, port_messages_.front());
}

// The port's next message (`vector`, at the head of port_messages_ by then) reaches the root
// complex at `at`, when the one before it leaves. Later than now, it is presented in that
// instant's order at once (SameTimeOrder::add_at) rather than by an event at `at`: nothing
// before that instant's end reads what presenting it changes (port_messages_ keeps it and
// port_sent_ stays set meanwhile, and both answer every question asked of the port --
// unsent_messages, emit_ordered -- as its presented state does). The event's sequence
// number is still taken, so that every other event keeps its place among equal times.
void Device::next_turn(Time at, uint32_t vector) {
  if (at == eq_->now()) {
    eq_->schedule(at, port_turn_, 0);
    return;
  }
  eq_->take_seq();
  order_->arrivals().add_at(at, InterruptDelivery::key(index_, InterruptDelivery::kMessage, vector),
                            &Device::on_port_message, this, vector);
}

// A message presented by next_turn, at its instant's end: as on_port_turn and then the
// platform's call would have had it.
void Device::on_port_message(void* self, uint64_t vector) {
  auto* d = static_cast<Device*>(self);
  assert(!d->port_messages_.empty() && d->port_messages_.front() == vector && d->port_sent_);
  d->port_messages_.pop_front();
  d->port_busy_ = true;
  d->port_sent_ = false;
  on_platform_message(self, vector);
}

// The port's message left its root complex: the next one is at the head now.
void Device::on_port_turn(void* self, uint64_t) {
  auto* d = static_cast<Device*>(self);
  assert(!d->port_messages_.empty() && d->port_sent_ && "a port's turn comes only for a message behind a sent one");
  const uint32_t vector = d->port_messages_.front();
  d->port_messages_.pop_front();
  d->present(vector);
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
