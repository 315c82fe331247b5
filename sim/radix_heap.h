// A monotone radix heap of events in (time, seq) order: the event queue's far tier, for
// events further ahead than its wheel reaches. Monotone: nothing is pushed earlier than
// the last time taken out, which holds because the wheel in front of it only moves
// forward and keeps everything nearer itself. An event is filed by the highest bit in
// which its time differs from that last time (`base_`); only the lowest non-empty bucket
// is ever sorted out, when bucket 0 (the events at base_, in sequence order) is empty.
// Buckets 1-64 are lists threaded through one pool of nodes, so memory follows the
// pending events.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <vector>

#include "sim/event.h"

namespace nvmesim::sim {

class RadixHeap {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  void push(const Event& e) {
    assert(e.time >= base_ && "the far tier is monotone");
    ++size_;
    const int k = bucket_of(e.time, base_);
    if (k == 0) {
      push_due(e);
      return;
    }
    uint32_t n = free_;
    if (n == kNil) {
      n = new_node();
    } else {
      free_ = nodes_[n].next;
    }
    nodes_[n].e = e;
    link(n, k);
  }
  // The earliest pending time; the heap must not be empty.
  uint64_t min_time() const {
    assert(size_ != 0);
    return due_.empty() ? earliest_[lowest_bucket()] : base_;
  }
  // Takes the earliest event out; the heap must not be empty.
  Event pop() {
    assert(size_ != 0);
    if (due_.empty()) settle();
    const Event e = due_[due_head_++];
    if (due_head_ == due_.size()) {
      due_.clear();
      due_head_ = 0;
    }
    --size_;
    return e;
  }

 private:
  static constexpr uint32_t kNil = UINT32_MAX;
  static constexpr std::size_t kBuckets = 65;  // 0: at base_; k: highest differing bit k-1
  struct Node {
    Event e;
    uint32_t next;
  };
  static int bucket_of(uint64_t t, uint64_t base) { return t == base ? 0 : 64 - std::countl_zero(t ^ base); }
  std::size_t lowest_bucket() const { return static_cast<std::size_t>(std::countr_zero(occupied_) + 1); }

  // Bucket 0 in sequence order: one pushed at base_ later has a higher sequence number
  // unless it was held back (EventQueue::take_seq).
  void push_due(const Event& e) {
    if (due_.empty() || due_.back().seq_hid < e.seq_hid) {
      due_.push_back(e);
      return;
    }
    due_.insert(std::upper_bound(due_.begin() + static_cast<std::ptrdiff_t>(due_head_), due_.end(), e, &earlier_seq),
                e);
  }
  static bool earlier_seq(const Event& a, const Event& b) { return a.seq_hid < b.seq_hid; }
  void link(uint32_t n, int k) {
    const auto b = static_cast<std::size_t>(k);
    const uint64_t t = nodes_[n].e.time;
    nodes_[n].next = head_[b];
    head_[b] = n;
    earliest_[b] = t < earliest_[b] ? t : earliest_[b];
    occupied_ |= uint64_t{1} << (k - 1);
  }
  [[gnu::noinline]] uint32_t new_node() {
    nodes_.push_back(Node{Event{}, kNil});
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  // Bucket 0 is empty and some other is not: move the base to the earliest time of the
  // lowest non-empty bucket and file that bucket's events again, each in a lower one.
  void settle() {
    assert(due_.empty());
    const std::size_t b = lowest_bucket();
    base_ = earliest_[b];
    uint32_t n = head_[b];
    head_[b] = kNil;
    earliest_[b] = UINT64_MAX;
    occupied_ &= ~(uint64_t{1} << (b - 1));
    while (n != kNil) {
      const uint32_t next = nodes_[n].next;
      const int j = bucket_of(nodes_[n].e.time, base_);
      if (j == 0) {
        due_.push_back(nodes_[n].e);  // in list order: sorted below
        nodes_[n].next = free_;
        free_ = n;
      } else {
        link(n, j);
      }
      n = next;
    }
    if (due_.size() > 1) std::sort(due_.begin(), due_.end(), &earlier_seq);
  }

  std::vector<Event> due_;  // bucket 0: [due_head_, size) in sequence order; cleared when taken empty
  std::size_t due_head_ = 0;
  std::vector<Node> nodes_;
  uint32_t free_ = kNil;
  std::array<uint32_t, kBuckets> head_ = [] {
    std::array<uint32_t, kBuckets> a{};
    a.fill(kNil);
    return a;
  }();
  std::array<uint64_t, kBuckets> earliest_ = [] {
    std::array<uint64_t, kBuckets> a{};
    a.fill(UINT64_MAX);
    return a;
  }();
  uint64_t occupied_ = 0;  // bit k-1 set: bucket k (k >= 1) holds events
  uint64_t base_ = 0;      // every pending time is >= base_; bucket 0 holds those == base_
  std::size_t size_ = 0;
};

}  // namespace nvmesim::sim
