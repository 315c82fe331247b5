// Lazy cancellation of timers: an owner (a queue, an MSI-X vector) keeps a generation that
// every arming and cancelling advances; the event carries the generation it was armed
// with and is ignored if the owner has moved on. One typed packing of (owner, generation)
// into the event's one word of argument, instead of hand-packed layouts.
#pragma once

#include <cstdint>

namespace nvmesim::sim {

struct TimerToken {
  uint32_t owner = 0;
  uint32_t generation = 0;

  constexpr uint64_t pack() const { return (static_cast<uint64_t>(owner) << 32) | generation; }
  static constexpr TimerToken unpack(uint64_t arg) {
    return TimerToken{static_cast<uint32_t>(arg >> 32), static_cast<uint32_t>(arg)};
  }
};

// The generation of one owner's timer. Wraps at 2^32 armings: a stale event would have
// to outlive four billion re-armings of the same timer to be mistaken for a live one.
class TimerGeneration {
 public:
  // A token for a new arming; earlier tokens become stale.
  TimerToken arm(uint32_t owner) { return TimerToken{owner, ++gen_}; }
  // Makes every token armed so far stale.
  void cancel() { ++gen_; }
  bool current(TimerToken t) const { return t.generation == gen_; }

 private:
  uint32_t gen_ = 0;
};

}  // namespace nvmesim::sim
