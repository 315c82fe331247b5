// One device's posted writes in PCIe order behind its MSI-X messages. A message is a
// posted write, and PCIe does not let a port's later posted writes (CQE writes, read data)
// pass its earlier ones; with interrupt remapping the message waits at its root complex
// until it is sent (InterruptDelivery), so the device's later writes land only then. One
// message of the device is at the root complex at a time: the next waits behind it.
#pragma once

#include <cstdint>

#include "models/host/interrupt_delivery.h"
#include "vocab/time.h"

namespace nvmesim {

class PostedWriteOrder {
 public:
  PostedWriteOrder(InterruptDelivery* delivery, uint32_t drive) : delivery_(delivery), drive_(drive) {}

  // A posted write emitted at `now` is visible from here: after the messages emitted
  // before it have left the root complex.
  Time visible_from(Time now) const { return max(now, ordered_until_); }
  bool stalls(Time now) const { return ordered_until_ > now; }
  bool posted() const { return delivery_->posted(); }
  // The device's message emitted at `now`, remappable: when it leaves the root complex
  // and when it reaches the core.
  InterruptTimes send(Time now) {
    const InterruptTimes t = delivery_->interrupt(drive_, visible_from(now));
    ordered_until_ = t.leaves;
    return t;
  }
  // Posted: when the message is in its CPU's descriptor (and has left the root complex).
  InterruptTimes post(Time now) {
    const InterruptTimes t = delivery_->post(drive_, visible_from(now));
    ordered_until_ = t.leaves;
    return t;
  }
  SameTimeOrder& arrivals() { return delivery_->arrivals(drive_); }

 private:
  InterruptDelivery* delivery_;
  uint32_t drive_;
  Time ordered_until_;  // the last emitted message leaves the root complex then
};

}  // namespace nvmesim
