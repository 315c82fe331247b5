// One run of __do_softirq on a core (kernel/softirq.c), as the model processes deferred
// work one item per segment: a pass takes the items pending when it starts; when a pass
// ends with work still pending, the run restarts -- at most max_restart passes in all
// and while max_time has not passed since the run began -- and otherwise hands the work
// to the core's ksoftirqd (wakeup_softirqd). Limits off: the run never hands over.
// need_resched() also ends a run in the kernel; it is not modelled. The 2 ms is exact
// here; the kernel counts it in jiffies (1 jiffy at HZ=250).
#pragma once

#include <cstddef>
#include <cstdint>

#include "vocab/profiles.h"
#include "vocab/time.h"

namespace nvmesim {

class SoftirqRun {
 public:
  enum class Next : uint8_t { item, done, to_ksoftirqd };

  explicit SoftirqRun(const SoftirqLimits& limits = {}) : limits_(limits) {}

  bool running() const { return running_; }
  // A run begins with `pending` items.
  void begin(Time now, std::size_t pending) {
    running_ = true;
    start_ = now;
    passes_ = 1;
    pass_left_ = pending;
  }
  // One item of the current pass has been taken.
  void took_item() {
    if (pass_left_ > 0) --pass_left_;
  }
  // The current pass stops early (irq_poll's budget is used up: it re-raises itself and
  // the remaining items wait for the next pass).
  void end_pass() { pass_left_ = 0; }
  // After an item: what the run does next, with `pending` items left.
  Next after_item(Time now, std::size_t pending) {
    if (pending == 0) {
      running_ = false;
      return Next::done;
    }
    if (pass_left_ > 0) return Next::item;
    // The pass is over and work is pending: restart, or wake ksoftirqd.
    if (limits_.active() && (passes_ >= limits_.max_restart || now - start_ >= limits_.max_time)) {
      running_ = false;
      return Next::to_ksoftirqd;
    }
    ++passes_;
    pass_left_ = pending;
    return Next::item;
  }
  uint32_t passes() const { return passes_; }

 private:
  SoftirqLimits limits_;
  bool running_ = false;
  Time start_;
  uint32_t passes_ = 0;
  std::size_t pass_left_ = 0;
};

}  // namespace nvmesim
