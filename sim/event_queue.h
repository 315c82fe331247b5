// The pending-event set of one simulation: events ordered by (time, seq) and nothing
// else, so equal-time events run in the order they were scheduled. Events are plain
// values (a handler, its context and one word of argument): scheduling never allocates
// once the buckets have grown, and dispatch is one indirect call, not a virtual.
// Cancellation is lazy: owners keep a generation number in `arg` and ignore stale events.
//
// Layout for speed (docs/performance.md): a pending event is 24 bytes -- time, sequence
// number with the handler's id in its low bits, argument -- and the (handler, context)
// pairs, a few per model object, live once in a table. The set is a radix heap: simulated
// time never goes back, so an event is filed by the highest bit in which its time differs
// from the last time taken out (`base_`), and only the lowest non-empty bucket is ever
// sorted out, when the one below it is empty. Pushing is a bit scan and a link; an event
// moves down a few buckets in its life (3.6 times in the default scenario), where a heap
// paid a chain of dependent compares on every pop (a third of the run's time). Events due
// at the base time wait in bucket 0, a small heap on the sequence number; the others are
// lists in one pool of nodes, so memory follows the pending events.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <vector>

#include "vocab/time.h"

namespace nvmesim::sim {

using Handler = void (*)(void* ctx, uint64_t arg);

// One pending event as the heap stores it.
struct Event {
  uint64_t time;     // ns, never negative
  uint64_t seq_hid;  // seq << kHandlerBits | handler id: seq is unique, so it alone orders
  uint64_t arg;
};

class EventQueue {
 public:
  static constexpr int kHandlerBits = 16;  // (handler, context) pairs per simulation
  static constexpr uint64_t kHandlerMask = (uint64_t{1} << kHandlerBits) - 1;

  EventQueue() { slots_.assign(kSlots, 0); }

  Time now() const { return now_; }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  uint64_t dispatched() const { return dispatched_; }
  // The earliest pending time (Time::never() when none).
  Time next_time() const {
    if (size_ == 0) return Time::never();
    if (!due_.empty()) return Time::from_ns(static_cast<int64_t>(base_));
    return Time::from_ns(static_cast<int64_t>(earliest_[static_cast<std::size_t>(std::countr_zero(occupied_) + 1)]));
  }

  void schedule(Time t, Handler fn, void* ctx, uint64_t arg = 0) { schedule_taken(t, take_seq(), fn, ctx, arg); }
  // A (handler, context) pair looked up once, by the call sites that schedule on every
  // I/O: scheduling with it skips the table's hash and probe. The context must outlive
  // the queue's use of it, as for any event.
  struct Bound {
    uint64_t id;
  };
  Bound bind(Handler fn, void* ctx) { return Bound{handler_id(fn, ctx)}; }
  void schedule(Time t, Bound h, uint64_t arg = 0) { push(t, take_seq(), h.id, arg); }
  // For an owner that holds events back and schedules them later, or finds it needs none:
  // take_seq() is the sequence number an event scheduled now would get, and an event
  // scheduled later with it runs exactly where that one would have.
  uint64_t take_seq() {
    assert(next_seq_ < (uint64_t{1} << (64 - kHandlerBits)) && "sequence numbers exhausted");
    return next_seq_++;
  }
  void schedule_taken(Time t, uint64_t seq, Handler fn, void* ctx, uint64_t arg = 0) {
    push(t, seq, handler_id(fn, ctx), arg);
  }
  void schedule_taken(Time t, uint64_t seq, Bound h, uint64_t arg = 0) { push(t, seq, h.id, arg); }
  void schedule_in(Duration d, Handler fn, void* ctx, uint64_t arg = 0) {
    schedule(now_ + d, fn, ctx, arg);
  }

  // Runs the earliest event; returns false when none is left.
  bool step() {
    if (size_ == 0) return false;
    dispatch(take_min());
    return true;
  }

  // Runs every event with time <= end, then sets the clock to end.
  void run_until(Time end) {
    const auto end_ns = static_cast<uint64_t>(end.ns());
    while (size_ != 0) {
      if (due_.empty()) settle();
      if (base_ > end_ns) break;  // bucket 0 holds the earliest events, all at base_
      dispatch(take_min());
    }
    if (now_ < end) now_ = end;
  }

 private:
  struct Target {
    Handler fn;
    void* ctx;
  };
  static constexpr std::size_t kSlots = 1024;  // hash table of handler ids, power of two
  static constexpr std::size_t kBuckets = 65;  // 0: at base_; k: highest differing bit k-1
  template <typename T>
  static constexpr std::array<T, kBuckets> filled(T v) {
    std::array<T, kBuckets> a{};
    a.fill(v);
    return a;
  }

  void push(Time t, uint64_t seq, uint64_t hid, uint64_t arg) {
    assert(t >= now_ && "events cannot be scheduled in the past");
    const Event e{static_cast<uint64_t>(t.ns()), (seq << kHandlerBits) | hid, arg};
    // Only after run_until stopped short of a later event can the base be past now.
    if (e.time < base_) rebase(e.time);
    insert(e);
    ++size_;
  }

  void dispatch(const Event& ev) {
    now_ = Time::from_ns(static_cast<int64_t>(ev.time));
    ++dispatched_;
    const Target& h = handlers_[ev.seq_hid & kHandlerMask];
    h.fn(h.ctx, ev.arg);
  }

  // The id of (fn, ctx), registered on first use; an open-addressing table keeps the
  // look-up to a hash and a compare or two.
  uint64_t handler_id(Handler fn, void* ctx) {
    const auto key = reinterpret_cast<uintptr_t>(fn) ^ (reinterpret_cast<uintptr_t>(ctx) * 0x9E3779B97F4A7C15ull);
    std::size_t i = (key ^ (key >> 29)) & (slots_.size() - 1);
    for (;; i = (i + 1) & (slots_.size() - 1)) {
      const uint32_t s = slots_[i];
      if (s == 0) break;
      const Target& h = handlers_[s - 1];
      if (h.fn == fn && h.ctx == ctx) return s - 1;
    }
    return add_handler(fn, ctx, i);
  }
  uint64_t add_handler(Handler fn, void* ctx, std::size_t slot) {
    assert(handlers_.size() < kHandlerMask && "too many (handler, context) pairs");
    handlers_.push_back(Target{fn, ctx});
    slots_[slot] = static_cast<uint32_t>(handlers_.size());
    if (2 * handlers_.size() > slots_.size()) rehash();
    return handlers_.size() - 1;
  }
  void rehash() {
    slots_.assign(slots_.size() * 2, 0);
    for (std::size_t id = 0; id < handlers_.size(); ++id) {
      const auto key = reinterpret_cast<uintptr_t>(handlers_[id].fn) ^
                       (reinterpret_cast<uintptr_t>(handlers_[id].ctx) * 0x9E3779B97F4A7C15ull);
      std::size_t i = (key ^ (key >> 29)) & (slots_.size() - 1);
      while (slots_[i] != 0) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = static_cast<uint32_t>(id + 1);
    }
  }

  // Bucket 0 (due_) holds the events due at base_ in sequence order, from due_head_ on:
  // one due now gets a sequence number above every pending one, so it joins at the back,
  // and only a held-back number (take_seq) or the events a settle brings down need a place
  // inside. Taking the next is then a step, not a heap's sift. Buckets 1-64 are unordered
  // lists threaded through one pool of nodes, so their memory is the pending events', not
  // each bucket's own high-water mark (65 growable arrays held several times the pending set).
  static constexpr uint32_t kNil = UINT32_MAX;
  struct Node {
    Event e;
    uint32_t next;
  };
  static bool earlier_seq(const Event& a, const Event& b) { return a.seq_hid < b.seq_hid; }
  static int bucket_of(uint64_t t, uint64_t base) { return t == base ? 0 : 64 - std::countl_zero(t ^ base); }

  void push_due(const Event& e) {
    if (due_.empty() || due_.back().seq_hid < e.seq_hid) {
      due_.push_back(e);
      return;
    }
    due_.insert(std::upper_bound(due_.begin() + static_cast<std::ptrdiff_t>(due_head_), due_.end(), e, &earlier_seq), e);
  }
  void link(uint32_t n, int k) {
    const auto b = static_cast<std::size_t>(k);
    const uint64_t t = nodes_[n].e.time;
    nodes_[n].next = head_[b];
    head_[b] = n;
    earliest_[b] = t < earliest_[b] ? t : earliest_[b];
    occupied_ |= uint64_t{1} << (k - 1);
  }
  void insert(const Event& e) {
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
  // Out of line: the pool grows only while the pending set reaches a new high, and
  // keeping it out of insert() lets insert() inline into the schedule calls.
  [[gnu::noinline]] uint32_t new_node() {
    nodes_.push_back(Node{Event{}, kNil});
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  // Bucket 0 is empty and some other is not: move the base to the earliest time of the
  // lowest non-empty bucket and file that bucket's events again, each in a lower one.
  void settle() {
    assert(due_.empty());
    const int k = std::countr_zero(occupied_) + 1;
    const auto b = static_cast<std::size_t>(k);
    base_ = earliest_[b];
    uint32_t n = head_[b];
    head_[b] = kNil;
    earliest_[b] = UINT64_MAX;
    occupied_ &= ~(uint64_t{1} << (k - 1));
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
  Event take_min() {
    if (due_.empty()) settle();
    const Event e = due_[due_head_++];
    if (due_head_ == due_.size()) {
      due_.clear();
      due_head_ = 0;
    }
    --size_;
    return e;
  }
  // An event earlier than the base (only after run_until stopped short, with the base on
  // the next event past the end): file everything again from the new, lower base.
  void rebase(uint64_t t) {
    std::vector<Event> all(due_.begin() + static_cast<std::ptrdiff_t>(due_head_), due_.end());
    due_.clear();
    due_head_ = 0;
    for (std::size_t b = 1; b < kBuckets; ++b) {
      for (uint32_t n = head_[b]; n != kNil; n = nodes_[n].next) all.push_back(nodes_[n].e);
      head_[b] = kNil;
      earliest_[b] = UINT64_MAX;
    }
    nodes_.clear();
    free_ = kNil;
    occupied_ = 0;
    base_ = t;
    for (const Event& e : all) insert(e);
  }

  std::vector<Event> due_;  // bucket 0: [due_head_, size) in sequence order; cleared when taken empty
  std::size_t due_head_ = 0;
  std::vector<Node> nodes_;
  uint32_t free_ = kNil;
  std::array<uint32_t, kBuckets> head_ = filled<uint32_t>(kNil);
  std::array<uint64_t, kBuckets> earliest_ = filled<uint64_t>(UINT64_MAX);
  uint64_t occupied_ = 0;  // bit k-1 set: bucket k (k >= 1) holds events
  uint64_t base_ = 0;      // every pending time is >= base_; bucket 0 holds those == base_
  std::size_t size_ = 0;
  std::vector<Target> handlers_;
  std::vector<uint32_t> slots_;  // id + 1 of a handler, 0 empty
  Time now_ = Time::zero();
  uint64_t next_seq_ = 0;
  uint64_t dispatched_ = 0;
};

}  // namespace nvmesim::sim
