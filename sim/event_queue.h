// The pending-event set of one simulation: events ordered by (time, seq) and nothing
// else, so equal-time events run in the order they were scheduled. Events are plain
// values (a handler, its context and one word of argument): scheduling never allocates
// once the heap has grown, and dispatch is one indirect call, not a virtual.
// Cancellation is lazy: owners keep a generation number in `arg` and ignore stale events.
//
// Layout for speed (docs/performance.md): the cost of the loop is the heap's memory
// traffic, so a pending event is 24 bytes -- time, sequence number with the handler's id
// in its low bits, argument -- and the (handler, context) pairs, a few per model object,
// live once in a table. An event that goes before every pending one (scheduled for now
// with nothing else due) waits in a one-event slot in front of the heap and never
// enters it. Neither changes the order in which events run.
#pragma once

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
  bool empty() const { return !has_front_ && heap_.empty(); }
  std::size_t size() const { return heap_.size() + (has_front_ ? 1 : 0); }
  uint64_t dispatched() const { return dispatched_; }
  Time next_time() const {
    if (has_front_) return Time::from_ns(static_cast<int64_t>(front_.time));
    return heap_.empty() ? Time::never() : Time::from_ns(static_cast<int64_t>(heap_.front().time));
  }

  void schedule(Time t, Handler fn, void* ctx, uint64_t arg = 0) { schedule_taken(t, take_seq(), fn, ctx, arg); }
  // For an owner that holds events back and schedules them later, or finds it needs none:
  // take_seq() is the sequence number an event scheduled now would get, and an event
  // scheduled later with it runs exactly where that one would have.
  uint64_t take_seq() {
    assert(next_seq_ < (uint64_t{1} << (64 - kHandlerBits)) && "sequence numbers exhausted");
    return next_seq_++;
  }
  void schedule_taken(Time t, uint64_t seq, Handler fn, void* ctx, uint64_t arg = 0) {
    assert(t >= now_ && "events cannot be scheduled in the past");
    Event e{static_cast<uint64_t>(t.ns()), (seq << kHandlerBits) | handler_id(fn, ctx), arg};
    if (has_front_) {
      if (before(e, front_)) std::swap(e, front_);
      push(e);
    } else if (heap_.empty() || before(e, heap_.front())) {
      front_ = e;
      has_front_ = true;
    } else {
      push(e);
    }
  }
  void schedule_in(Duration d, Handler fn, void* ctx, uint64_t arg = 0) {
    schedule(now_ + d, fn, ctx, arg);
  }

  // Runs the earliest event; returns false when none is left.
  bool step() {
    Event ev;
    if (has_front_) {
      ev = front_;
      has_front_ = false;
    } else if (!heap_.empty()) {
      ev = heap_.front();
      pop_front();
    } else {
      return false;
    }
    now_ = Time::from_ns(static_cast<int64_t>(ev.time));
    ++dispatched_;
    const Target& h = handlers_[ev.seq_hid & kHandlerMask];
    h.fn(h.ctx, ev.arg);
    return true;
  }

  // Runs every event with time <= end, then sets the clock to end.
  void run_until(Time end) {
    const auto end_ns = static_cast<uint64_t>(end.ns());
    for (;;) {
      if (has_front_) {
        if (front_.time > end_ns) break;
      } else if (heap_.empty() || heap_.front().time > end_ns) {
        break;
      }
      step();
    }
    if (now_ < end) now_ = end;
  }

 private:
  struct Target {
    Handler fn;
    void* ctx;
  };
  static constexpr std::size_t kSlots = 1024;  // hash table of handler ids, power of two

  // (time, seq) as one 128-bit number: one compare-and-borrow, no branch.
  using Key = unsigned __int128;
  static Key key(const Event& e) { return (static_cast<Key>(e.time) << 64) | e.seq_hid; }
  static bool before(const Event& a, const Event& b) { return key(a) < key(b); }

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

  // A 4-ary heap: shallower than binary, and a node's children share a cache line or two.
  void push(const Event& e) {
    std::size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      std::size_t parent = (i - 1) / 4;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Removes the root: Floyd's bottom-up variant. The hole walks down to a leaf along the
  // smaller children (a branch-free choice among four: the comparisons are coin flips a
  // predictor cannot learn), then the last event rises from there -- usually not far,
  // since it came from the bottom.
  void pop_front() {
    const Event last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return;
    Event* h = heap_.data();
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first + 4 <= n) {
        // A tournament: the two pairs are independent, so their compares overlap, and
        // only indexes are selected (arithmetic on the compare results, no branch).
        const Event* c = h + first;
        const std::size_t w01 = first + static_cast<std::size_t>(key(c[1]) < key(c[0]));
        const std::size_t w23 = first + 2 + static_cast<std::size_t>(key(c[3]) < key(c[2]));
        const std::size_t best = key(h[w23]) < key(h[w01]) ? w23 : w01;
        h[i] = h[best];
        i = best;
      } else {
        if (first < n) {
          std::size_t best = first;
          for (std::size_t c = first + 1; c < n; ++c)
            if (key(h[c]) < key(h[best])) best = c;
          h[i] = h[best];
          i = best;
        }
        break;
      }
    }
    const Key lk = key(last);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!(lk < key(h[parent]))) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = last;
  }

  std::vector<Event> heap_;
  Event front_{};
  bool has_front_ = false;  // front_ holds an event earlier than every one in heap_
  std::vector<Target> handlers_;
  std::vector<uint32_t> slots_;  // id + 1 of a handler, 0 empty
  Time now_ = Time::zero();
  uint64_t next_seq_ = 0;
  uint64_t dispatched_ = 0;
};

}  // namespace nvmesim::sim
