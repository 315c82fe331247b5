// CQ posting: the CQEs scheduled per queue in posting order, written into the host's CQ
// ring at their time or earlier when a reaper gets there first (post_due), and, behind the
// drive's messages at the root complex, held until they land.
#include "models/device/device.h"

namespace nvmesim {

void Device::schedule_post(uint32_t cid, uint32_t qid, Time post) {
  if (times_) times_[cid].posted = post;
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

}  // namespace nvmesim
