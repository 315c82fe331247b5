// The path an MSI-X message takes from the drive to a core: a posted write through the
// root complex and the IOMMU's interrupt remapping, shared by the drives behind it. One
// message at a time at `messages_per_s`, plus a fixed `latency`: a FIFO server, so many
// drives' interrupts queue for it even when every queue has its own core. Source of the
// mechanism: published.md, "Interrupt delivery as a shared, per-socket resource".
// Two ways to use it: delay() alone (posted_credits 0: the message is late, nothing
// else is), or serve() from a device's PostedWriteOrder (the message holds up the
// device's later posted writes and uses one of its credits until it leaves).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "models/same_time_order.h"
#include "vocab/profiles.h"
#include "vocab/time.h"

namespace nvmesim {

class MsixPath {
 public:
  explicit MsixPath(const MsixPathSpec& spec)
      : gap_ps_(spec.messages_per_s > 0 ? std::llround(1e12 / spec.messages_per_s) : 0),
        ps_per_byte_(spec.data_bytes_per_s > 0 ? 1e12 / spec.data_bytes_per_s : 0),
        latency_(spec.latency) {}

  // A message written at `now` leaves the path (remapped, at the core's APIC) `delay` later.
  Duration delay(Time now) {
    const int64_t now_ps = now.ns() * kPsPerNs;
    const int64_t start = std::max(now_ps, free_ps_);
    free_ps_ = start + gap_ps_;
    ++messages_;
    const int64_t done_ns = (free_ps_ + kPsPerNs - 1) / kPsPerNs;  // ceil: never early
    queued_ += Duration::ns((start - now_ps) / kPsPerNs);
    return Duration::ns(done_ns - now.ns()) + latency_;
  }
  // The ordered use: a message that reaches the path at `ready` leaves its FIFO (remapped;
  // the device's later writes may pass the ordering point) at the returned time; the
  // latency is then paid on the way to the APIC, holding nothing up.
  Time serve(Time ready) {
    const int64_t start = std::max(ready.ns() * kPsPerNs, free_ps_);
    free_ps_ = start + gap_ps_;
    ++messages_;
    queued_ += Duration::ns((start - ready.ns() * kPsPerNs) / kPsPerNs);
    return Time::from_ns((free_ps_ + kPsPerNs - 1) / kPsPerNs);
  }
  // The path's time for one message, and for `bytes` of read data (picoseconds).
  int64_t message_ps() const { return gap_ps_; }
  int64_t data_ps(uint32_t bytes) const { return std::llround(ps_per_byte_ * bytes); }
  // Whether the drives' read data pass the ordering point in the messages' line.
  bool carries_data() const { return ps_per_byte_ > 0; }
  // Read data that reach the ordering point at `ready` pass it, behind everything that
  // reached it before (messages and other drives' data), by the returned time.
  Time carry(Time ready, uint32_t bytes) {
    const int64_t start = std::max(ready.ns() * kPsPerNs, free_ps_);
    free_ps_ = start + data_ps(bytes);
    return Time::from_ns((free_ps_ + kPsPerNs - 1) / kPsPerNs);
  }
  // When everything that reached the ordering point so far has passed it.
  Time clear_at() const { return Time::from_ns((free_ps_ + kPsPerNs - 1) / kPsPerNs); }
  // A line's requests of one instant (its drives' messages and read data) in an order of
  // their own (drive, kind, queue or vector), so that the line's order does not depend on
  // which of that instant's events ran first.
  SameTimeOrder& arrivals() { return arrivals_; }
  Duration latency() const { return latency_; }
  uint64_t messages() const { return messages_; }
  Duration queued() const { return queued_; }  // total wait behind other messages

 private:
  static constexpr int64_t kPsPerNs = 1000;
  int64_t gap_ps_;     // service time per message (picoseconds keep the capacity exact)
  double ps_per_byte_;  // 0: data do not pass here
  Duration latency_;
  int64_t free_ps_ = 0;
  uint64_t messages_ = 0;
  Duration queued_;
  SameTimeOrder arrivals_;
};

}  // namespace nvmesim
