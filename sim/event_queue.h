// The pending-event set of one simulation: events ordered by (time, seq) and nothing
// else, so equal-time events run in the order they were scheduled. Events are plain
// values (a function pointer, its context and one word of argument): scheduling never
// allocates once the heap has grown, and dispatch is one indirect call, not a virtual.
// Cancellation is lazy: owners keep a generation number in `arg` and ignore stale events.
#pragma once

#include <cassert>
#include <cstdint>
#include <vector>

#include "vocab/time.h"

namespace nvmesim::sim {

using Handler = void (*)(void* ctx, uint64_t arg);

struct Event {
  Time time;
  uint64_t seq;
  Handler fn;
  void* ctx;
  uint64_t arg;
};

class EventQueue {
 public:
  Time now() const { return now_; }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  uint64_t dispatched() const { return dispatched_; }
  Time next_time() const { return heap_.empty() ? Time::never() : heap_.front().time; }

  void schedule(Time t, Handler fn, void* ctx, uint64_t arg = 0) {
    assert(t >= now_ && "events cannot be scheduled in the past");
    heap_.push_back(Event{t, next_seq_++, fn, ctx, arg});
    sift_up(heap_.size() - 1);
  }
  void schedule_in(Duration d, Handler fn, void* ctx, uint64_t arg = 0) {
    schedule(now_ + d, fn, ctx, arg);
  }

  // Runs the earliest event; returns false when none is left.
  bool step() {
    if (heap_.empty()) return false;
    Event ev = heap_.front();
    pop_front();
    now_ = ev.time;
    ++dispatched_;
    ev.fn(ev.ctx, ev.arg);
    return true;
  }

  // Runs every event with time <= end, then sets the clock to end.
  void run_until(Time end) {
    while (!heap_.empty() && heap_.front().time <= end) step();
    if (now_ < end) now_ = end;
  }

 private:
  static bool before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }
  // A 4-ary heap: shallower than binary, and a node's children share a cache line or two.
  void sift_up(std::size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      std::size_t parent = (i - 1) / 4;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void pop_front() {
    Event last = heap_.back();
    heap_.pop_back();
    if (heap_.empty()) return;
    std::size_t n = heap_.size(), i = 0;
    for (;;) {
      std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      std::size_t end = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < end; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
  }

  std::vector<Event> heap_;
  Time now_ = Time::zero();
  uint64_t next_seq_ = 0;
  uint64_t dispatched_ = 0;
};

}  // namespace nvmesim::sim
