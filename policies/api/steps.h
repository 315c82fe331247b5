// What a policy asks of the context it runs in, returned from its hooks. The runner
// (simulated or real) carries these out and charges their cost to the right context.
#pragma once

#include "vocab/time.h"

namespace nvmesim::policy {

// After one IRQ-thread iteration.
struct ThreadStep {
  enum class Kind {
    park,       // go to sleep until woken (wake_thread)
    resched,    // cond_resched(), then iterate again
    sleep,      // fsleep(duration), then iterate again
  };
  Kind kind = Kind::park;
  Duration duration = Duration::zero();

  static constexpr ThreadStep park() { return {Kind::park, Duration::zero()}; }
  static constexpr ThreadStep resched() { return {Kind::resched, Duration::zero()}; }
  static constexpr ThreadStep sleep(Duration d) { return {Kind::sleep, d}; }
};

// After one hrtimer expiry / irq_poll run in softirq context.
struct TimerStep {
  bool rearm = false;
  Duration period = Duration::zero();

  static constexpr TimerStep stop() { return {false, Duration::zero()}; }
  static constexpr TimerStep again(Duration d) { return {true, d}; }
};

}  // namespace nvmesim::policy
