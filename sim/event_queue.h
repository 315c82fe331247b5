// The pending-event set of one simulation: events ordered by (time, seq) and nothing
// else, so equal-time events run in the order they were scheduled. Events are plain
// values (a handler, its context and one word of argument): scheduling never allocates
// once the pools have grown, and dispatch is one indirect call, not a virtual.
// Cancellation is lazy: owners keep a generation number in `arg` and ignore stale events.
//
// Layout for speed (docs/performance.md): a pending event is 24 bytes (sim/event.h), and
// the (handler, context) pairs, a few per model object, live once in a table. The set has
// two tiers. Near events -- a unit's completion ~100 us ahead, segment ends, postings --
// go into a wheel of 256 ns slots reaching 1 ms ahead: filing one is a shift and a link,
// and it moves once, when its slot comes up and the slot's few events are sorted into the
// current run. Events further ahead wait in a radix heap (sim/radix_heap.h) and join the
// wheel when it reaches them. A binary radix heap alone moved an event 3.6 times in its
// life in the default scenario, and those moves were a fifth of a run.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <vector>

#include "sim/event.h"
#include "sim/radix_heap.h"
#include "vocab/time.h"

namespace nvmesim::sim {

class EventQueue {
 public:
  static constexpr int kHandlerBits = 16;
  static constexpr int64_t kSlotNs = 256;               // the wheel's slot (2^kSlotShift)
  static constexpr int64_t kWheelReachNs = 4096 * kSlotNs;  // events further ahead wait in the far tier  // (handler, context) pairs per simulation
  static constexpr uint64_t kHandlerMask = (uint64_t{1} << kHandlerBits) - 1;

  EventQueue() : hash_(kHashSlots, 0) {}

  Time now() const { return now_; }
  bool empty() const { return size_ == 0 && future_min_ == UINT64_MAX; }
  std::size_t size() const { return size_; }
  uint64_t dispatched() const { return dispatched_; }
  // Whether an event scheduled at `t` with sequence number `seq` (take_seq) has run by now:
  // for an owner that keeps such an event back and acts it out when someone looks. Within
  // an event, the earlier events of its instant have run; in the instant's end phase and
  // after run_until, all of them.
  bool has_run(Time t, uint64_t seq) const { return t < now_ || (t == now_ && seq < running_seq_); }
  // The earliest pending time (Time::never() when none). Not const: it may bring the
  // wheel's next slot into the current run, which changes no order.
  Time next_time() {
    if (size_ == 0) return future_min_ == UINT64_MAX ? Time::never() : Time::from_ns(static_cast<int64_t>(future_min_));
    if (cur_.empty()) advance();
    return Time::from_ns(static_cast<int64_t>(std::min(cur_.front().time, future_min_)));
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
  // Runs fn(ctx) once every event of the current instant has run, before the clock moves
  // on: a phase at the end of an instant, for an owner that must see all of that
  // instant's requests before it orders them (no event, so none to file and sort). Several
  // run by `rank`, lower first; what they schedule at the same instant runs after them.
  using InstantEnd = void (*)(void* ctx);
  void at_instant_end(uint32_t rank, InstantEnd fn, void* ctx) { instant_end_.push_back({rank, fn, ctx}); }
  // The same for a later instant `t`, asked for before it: fn(ctx) runs in t's end phase,
  // as if at_instant_end(rank, fn, ctx) had been called at t before that phase, whether
  // or not any event runs at t. No event is filed: an owner that knows now that it will
  // have a request at t needs no event at t only to make it (SameTimeOrder::add_at).
  void at_instant_end_at(Time t, uint32_t rank, InstantEnd fn, void* ctx) {
    assert(t > now_ && "a later instant");
    const auto at = static_cast<uint64_t>(t.ns());
    // In time order, equal times in the order asked for: a few are pending at most.
    future_end_.push_back({at, {rank, fn, ctx}});
    for (std::size_t j = future_end_.size() - 1; j > future_head_ && future_end_[j - 1].time > at; --j)
      std::swap(future_end_[j], future_end_[j - 1]);
    future_min_ = future_end_[future_head_].time;
  }

  // Runs the earliest event; returns false when none is left.
  bool step() { return step_until(UINT64_MAX - 1); }

  // Runs every event with time <= end, then sets the clock to end.
  void run_until(Time end) {
    const auto end_ns = static_cast<uint64_t>(end.ns());
    while (step_until(end_ns)) {
    }
    if (now_ < end) now_ = end;
    running_seq_ = next_seq_;
  }

 private:
  struct Target {
    Handler fn;
    void* ctx;
  };
  struct InstantEndCall {
    uint32_t rank;
    InstantEnd fn;
    void* ctx;
  };
  struct FutureEnd {
    uint64_t time;
    InstantEndCall call;
  };
  // One step of the run up to end_ns: an instant's end phase, or an event, or the start of
  // an instant that has an end phase asked for (at_instant_end_at) and no event. False when
  // nothing is left up to end_ns.
  [[gnu::always_inline]] bool step_until(uint64_t end_ns) {
    if (instant_ends_now()) return true;
    uint64_t next = UINT64_MAX;
    if (size_ != 0) {
      if (cur_.empty()) advance();
      next = cur_.front().time;
    }
    if (future_min_ <= next) [[unlikely]] {
      if (future_min_ > end_ns) return false;
      if (future_min_ < next) {
        begin_future_instant();
        return true;
      }
      dispatch(take());    // the instant's first event, then the end phases asked for it join
      take_future_ends();  // (one asked for by that event itself is asked for at the instant)
      return true;
    }
    if (next > end_ns) return false;
    dispatch(take());
    return true;
  }
  // Runs the instant's end phase if one is pending and no event of this instant is left.
  bool instant_ends_now() {
    if (instant_end_.empty()) return false;
    if (size_ != 0) {
      if (cur_.empty()) advance();
      if (cur_.front().time == static_cast<uint64_t>(now_.ns())) return false;
    }
    running_seq_ = next_seq_;  // every event of this instant scheduled so far has run
    if (instant_end_.size() == 1) {  // the usual case: no order to sort, nothing to swap
      const InstantEndCall c = instant_end_.front();
      instant_end_.clear();  // one asked for while it runs comes next
      c.fn(c.ctx);
      return true;
    }
    instant_running_.swap(instant_end_);  // one asked for while these run comes next
    // By rank, equal ranks in the order asked for: an insertion sort, as a few are pending
    // (std::stable_sort asks the heap for a buffer on every call).
    for (std::size_t k = 1; k < instant_running_.size(); ++k) {
      const InstantEndCall c = instant_running_[k];
      std::size_t j = k;
      for (; j > 0 && c.rank < instant_running_[j - 1].rank; --j) instant_running_[j] = instant_running_[j - 1];
      instant_running_[j] = c;
    }
    for (const InstantEndCall& c : instant_running_) c.fn(c.ctx);
    instant_running_.clear();
    return true;
  }
  // The clock reaches the earliest instant asked for by at_instant_end_at, before any
  // event at that time (there is none, or it is the run's end).
  void begin_future_instant() {
    now_ = Time::from_ns(static_cast<int64_t>(future_min_));
    const std::size_t h = future_head_;
    if (h + 1 < future_end_.size() && future_end_[h + 1].time == future_min_) {
      take_future_ends();  // several: instant_ends_now orders them
      return;
    }
    // One, and no event at this instant: its end phase is that call alone, now.
    const InstantEndCall c = future_end_[h].call;
    pop_future_end();
    running_seq_ = next_seq_;
    c.fn(c.ctx);
  }
  void pop_future_end() {
    if (++future_head_ == future_end_.size()) {
      future_end_.clear();
      future_head_ = 0;
      future_min_ = UINT64_MAX;
      return;
    }
    if (future_head_ >= 64 && 2 * future_head_ >= future_end_.size()) {  // taken ones out, now and then
      future_end_.erase(future_end_.begin(), future_end_.begin() + static_cast<std::ptrdiff_t>(future_head_));
      future_head_ = 0;
    }
    future_min_ = future_end_[future_head_].time;
  }
  // The phases asked for now by at_instant_end_at join now's end phase, in the order they
  // were asked for.
  void take_future_ends() {
    const auto now = static_cast<uint64_t>(now_.ns());
    while (future_min_ == now) {
      instant_end_.push_back(future_end_[future_head_].call);
      pop_future_end();
    }
  }
  static constexpr std::size_t kHashSlots = 1024;  // hash table of handler ids, power of two
  // The wheel: slots of 2^kSlotShift ns, kWheelSlots of them (1.05 ms): every event of a
  // 4 KiB read on a current drive falls inside it. Wider slots hold more events each
  // (more sorting, more insertions into the current run), narrower ones leave more slots
  // with one event (a bit scan each): 256 ns took the fewest instructions on the default
  // scenario (64 ns: +1.6%, 1 us: -1.6% there but +1.6% on the peers' denser model).
  static constexpr int kSlotShift = 8;
  static constexpr uint64_t kWheelSlots = 4096;
  static_assert(kSlotNs == int64_t{1} << kSlotShift && kWheelReachNs == static_cast<int64_t>(kWheelSlots) * kSlotNs);
  static constexpr uint64_t kWheelMask = kWheelSlots - 1;
  static constexpr std::size_t kWords = kWheelSlots / 64;  // occupancy bitmap
  static_assert(kWords == 64, "one summary word indexes the bitmap");
  static constexpr uint32_t kNil = UINT32_MAX;
  struct Node {
    Event e;
    uint32_t next;
  };

  void push(Time t, uint64_t seq, uint64_t hid, uint64_t arg) {
    assert(t >= now_ && "events cannot be scheduled in the past");
    const Event e{static_cast<uint64_t>(t.ns()), (seq << kHandlerBits) | hid, arg};
    ++size_;
    const uint64_t slot = e.time >> kSlotShift;
    if (slot <= cur_slot_) {
      cur_.insert(e);
    } else if (slot - cur_slot_ < kWheelSlots) {
      link(e, slot);
    } else {
      far_.push(e);
      far_next_ = std::min(far_next_, e.time);
    }
  }

  void dispatch(const Event& ev) {
    now_ = Time::from_ns(static_cast<int64_t>(ev.time));
    ++dispatched_;
    running_seq_ = ev.seq_hid >> kHandlerBits;
    const Target& h = handlers_[ev.seq_hid & kHandlerMask];
    h.fn(h.ctx, ev.arg);
  }

  // The id of (fn, ctx), registered on first use; an open-addressing table keeps the
  // look-up to a hash and a compare or two.
  uint64_t handler_id(Handler fn, void* ctx) {
    const auto key = reinterpret_cast<uintptr_t>(fn) ^ (reinterpret_cast<uintptr_t>(ctx) * 0x9E3779B97F4A7C15ull);
    std::size_t i = (key ^ (key >> 29)) & (hash_.size() - 1);
    for (;; i = (i + 1) & (hash_.size() - 1)) {
      const uint32_t s = hash_[i];
      if (s == 0) break;
      const Target& h = handlers_[s - 1];
      if (h.fn == fn && h.ctx == ctx) return s - 1;
    }
    return add_handler(fn, ctx, i);
  }
  uint64_t add_handler(Handler fn, void* ctx, std::size_t slot) {
    assert(handlers_.size() < kHandlerMask && "too many (handler, context) pairs");
    handlers_.push_back(Target{fn, ctx});
    hash_[slot] = static_cast<uint32_t>(handlers_.size());
    if (2 * handlers_.size() > hash_.size()) rehash();
    return handlers_.size() - 1;
  }
  void rehash() {
    hash_.assign(hash_.size() * 2, 0);
    for (std::size_t id = 0; id < handlers_.size(); ++id) {
      const auto key = reinterpret_cast<uintptr_t>(handlers_[id].fn) ^
                       (reinterpret_cast<uintptr_t>(handlers_[id].ctx) * 0x9E3779B97F4A7C15ull);
      std::size_t i = (key ^ (key >> 29)) & (hash_.size() - 1);
      while (hash_[i] != 0) i = (i + 1) & (hash_.size() - 1);
      hash_[i] = static_cast<uint32_t>(id + 1);
    }
  }

  // The current run holds every pending event of slot cur_slot_ and earlier, in (time,
  // seq) order. One scheduled for now or within the slot usually goes at its back (it has
  // the highest sequence number); an event earlier than the current slot -- after
  // run_until stopped short of it -- goes in its place too, since everything in the wheel
  // and the far tier is later. A plain buffer with a head: taking and appending are an
  // index step each, and its storage stays once grown.
  class Run {
   public:
    bool empty() const { return head_ == end_; }
    const Event& front() const { return buf_[head_]; }
    void push_back(const Event& e) {
      if (end_ == cap_) [[unlikely]] grow();
      buf_[end_++] = e;
    }
    void insert(const Event& e) {
      if (empty() || runs_before(buf_[end_ - 1], e)) {
        push_back(e);
        return;
      }
      push_back(e);  // room for one more, then shift the later ones up
      std::size_t j = end_ - 1;
      for (; j > head_ && runs_before(e, buf_[j - 1]); --j) buf_[j] = buf_[j - 1];
      buf_[j] = e;
    }
    Event pop_front() {
      const Event e = buf_[head_++];
      if (head_ == end_) head_ = end_ = 0;
      return e;
    }
    // Sorts what a slot brought in (the run was empty before): a few events, unless a
    // burst filled the slot.
    void sort() {
      const auto first = buf_.begin() + static_cast<std::ptrdiff_t>(head_);
      const auto last = buf_.begin() + static_cast<std::ptrdiff_t>(end_);
      if (end_ - head_ > 16) {
        std::sort(first, last, &runs_before);
        return;
      }
      for (auto k = first + 1; k < last; ++k) {
        const Event e = *k;
        auto j = k;
        for (; j > first && runs_before(e, *(j - 1)); --j) *j = *(j - 1);
        *j = e;
      }
    }

   private:
    // Out of line, and the capacity kept as a plain count: the check in push_back is then
    // one compare (a vector's size is a subtraction and a division by 24).
    [[gnu::noinline]] void grow() {
      buf_.resize(std::max<std::size_t>(16, 2 * buf_.size()));
      cap_ = buf_.size();
    }
    std::vector<Event> buf_;
    std::size_t cap_ = 0;
    std::size_t head_ = 0, end_ = 0;
  };

  Event take() {
    --size_;
    return cur_.pop_front();
  }

  // A slot of the wheel (cur_slot_ < slot < cur_slot_ + kWheelSlots) keeps an unordered
  // list of its events, threaded through one pool of nodes.
  void link(const Event& e, uint64_t slot) {
    uint32_t n = free_;
    if (n == kNil) {
      n = new_node();
    } else {
      free_ = nodes_[n].next;
    }
    const auto i = static_cast<std::size_t>(slot & kWheelMask);
    nodes_[n].e = e;
    nodes_[n].next = ring_[i];
    ring_[i] = n;
    words_[i >> 6] |= uint64_t{1} << (i & 63);
    summary_ |= uint64_t{1} << (i >> 6);
    ++in_wheel_;
  }
  // Out of line: the pool grows only while the pending set reaches a new high, and
  // keeping it out of link() lets link() inline into the schedule calls.
  [[gnu::noinline]] uint32_t new_node() {
    nodes_.push_back(Node{Event{}, kNil});
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  // The nearest occupied slot after cur_slot_ (the wheel must hold events).
  uint64_t next_occupied() const {
    const auto start = static_cast<std::size_t>((cur_slot_ + 1) & kWheelMask);
    const std::size_t w = start >> 6;
    std::size_t i;
    if (const uint64_t bits = words_[w] & (~uint64_t{0} << (start & 63)); bits != 0) {
      i = (w << 6) + static_cast<std::size_t>(std::countr_zero(bits));
    } else {
      // A later word, else (round the ring) the first occupied word: its occupied bits
      // are all below `start`, or it would have been found above.
      const uint64_t later = w == 63 ? 0 : summary_ & (~uint64_t{0} << (w + 1));
      const auto w2 = static_cast<std::size_t>(std::countr_zero(later != 0 ? later : summary_));
      i = (w2 << 6) + static_cast<std::size_t>(std::countr_zero(words_[w2]));
    }
    return cur_slot_ + ((i - cur_slot_) & kWheelMask);
  }
  // The current run is empty and events are pending: make the next occupied slot the
  // current one, bring in the far events the wheel now reaches, and sort the slot's events.
  void advance() {
    assert(cur_.empty() && size_ != 0);
    const uint64_t s = in_wheel_ != 0 ? next_occupied() : far_next_ >> kSlotShift;
    cur_slot_ = s;
    if (far_next_ < (s + kWheelSlots) << kSlotShift) bring_in_far(s);
    const auto i = static_cast<std::size_t>(s & kWheelMask);
    uint32_t n = ring_[i];
    if (n == kNil) return;  // the far tier had the slot's only events
    ring_[i] = kNil;
    words_[i >> 6] &= ~(uint64_t{1} << (i & 63));
    if (words_[i >> 6] == 0) summary_ &= ~(uint64_t{1} << (i >> 6));
    const bool alone = cur_.empty() && nodes_[n].next == kNil;
    while (n != kNil) {
      const uint32_t next = nodes_[n].next;
      cur_.push_back(nodes_[n].e);
      nodes_[n].next = free_;
      free_ = n;
      --in_wheel_;
      n = next;
    }
    if (!alone) cur_.sort();
  }
  // The far events the wheel now reaches (it moved to slot s): into their slots, or the
  // current run for slot s itself.
  void bring_in_far(uint64_t s) {
    const uint64_t reach = (s + kWheelSlots) << kSlotShift;
    while (!far_.empty() && far_.min_time() < reach) {
      const Event e = far_.pop();
      const uint64_t slot = e.time >> kSlotShift;
      if (slot == s) {
        cur_.push_back(e);
      } else {
        link(e, slot);
      }
    }
    far_next_ = far_.empty() ? UINT64_MAX : far_.min_time();
  }

  Run cur_;               // the current run
  uint64_t cur_slot_ = 0;  // the slot the current run covers (with everything earlier)
  std::array<uint32_t, kWheelSlots> ring_ = [] {
    std::array<uint32_t, kWheelSlots> a{};
    a.fill(kNil);
    return a;
  }();
  std::array<uint64_t, kWords> words_{};  // bit i: ring_[i] holds events
  uint64_t summary_ = 0;                  // bit w: words_[w] is not zero
  std::size_t in_wheel_ = 0;
  std::vector<Node> nodes_;
  uint32_t free_ = kNil;
  RadixHeap far_;  // events at slot cur_slot_ + kWheelSlots or later
  uint64_t far_next_ = UINT64_MAX;  // the far tier's earliest time (UINT64_MAX: empty)
  std::size_t size_ = 0;
  std::vector<Target> handlers_;
  std::vector<InstantEndCall> instant_end_, instant_running_;  // at_instant_end's
  std::vector<FutureEnd> future_end_;  // at_instant_end_at's from future_head_ on, in time order
  std::size_t future_head_ = 0;
  uint64_t future_min_ = UINT64_MAX;   // their earliest time (UINT64_MAX: none)
  std::vector<uint32_t> hash_;  // id + 1 of a handler, 0 empty
  Time now_ = Time::zero();
  uint64_t next_seq_ = 0;
  uint64_t running_seq_ = 0;  // the running event's seq (has_run)
  uint64_t dispatched_ = 0;
};

}  // namespace nvmesim::sim
