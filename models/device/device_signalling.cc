// Interrupt signalling towards the platform: the messages the vectors let through, sent to
// the host at once, or with the platform's ordering through the port one at a time in PCIe
// order (presented, sent by the root complex, the next behind it), and the CQEs written
// behind a message not yet sent, which land when it leaves.
#include "models/device/device.h"

#include <cassert>

namespace nvmesim {

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

}  // namespace nvmesim
