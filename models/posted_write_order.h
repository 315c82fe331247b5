// One device's posted writes in PCIe order through a shared MsixPath. An MSI-X message is
// a posted write, and PCIe does not let a device's later posted writes (CQE writes, read
// data) pass its earlier ones; with interrupt remapping the message waits at the root
// complex for the IOMMU (published.md: "expensive and strongly ordered with DMA"), so a
// CQE written behind it lands in host memory only when the message has left. Credits are
// finite: a device with `credits` messages still in the path sends no more; a vector that
// signals meanwhile keeps one message waiting at the device's egress, and later signals
// of that vector merge into it (the MSI-X pending state), so the path's backlog is bounded
// and a saturated path yields fewer, larger interrupts instead of an unbounded queue.
#pragma once

#include <cstdint>

#include "models/msix_path.h"
#include "vocab/time.h"

namespace nvmesim {

class PostedWriteOrder {
 public:
  PostedWriteOrder(MsixPath* path, uint32_t credits) : path_(path), credits_(credits) {}

  // A posted write emitted at `now` is visible from here: after every message emitted
  // before it has left the path's ordering point.
  // When the path carries data, behind everything in its line (messages and the data of
  // every drive behind it).
  Time visible_from(Time now) const { return max(now, path_->carries_data() ? path_->clear_at() : ordered_until_); }
  bool stalls(Time now) const { return visible_from(now) > now; }
  bool carries_data() const { return path_->carries_data(); }
  // Read data leaving the device's link at `ready` land in host memory then.
  Time carry(Time ready, uint32_t bytes) { return path_->carry(ready, bytes); }
  // Whether a message may be emitted now (a credit is free).
  bool has_credit() const { return credits_ == 0 || in_path_ < credits_; }  // 0: no limit
  bool limits_credits() const { return credits_ > 0; }
  // Emits a message at `now` (has_credit() must hold); returns when it leaves the path.
  Time emit(Time now) {
    take_credit();
    return send(now);
  }
  // emit() in two steps, for a line whose instant's requests are ordered (SameTimeOrder):
  // the credit when the message is made, the path when its turn comes.
  void take_credit() { ++in_path_; }
  Time send(Time now) {
    ordered_until_ = path_->serve(visible_from(now));
    return ordered_until_;
  }
  SameTimeOrder& arrivals() { return path_->arrivals(); }
  const MsixPath& path() const { return *path_; }
  // A message left the path: its credit is free again.
  void left() { --in_path_; }
  uint32_t in_path() const { return in_path_; }
  Duration latency() const { return path_->latency(); }

 private:
  MsixPath* path_;
  uint32_t credits_;
  uint32_t in_path_ = 0;
  Time ordered_until_;  // the last emitted message leaves the ordering point then
};

}  // namespace nvmesim
