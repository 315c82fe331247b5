// One core's local timer interrupt (issue 10, item 2; host profile timer_expiry
// "interrupt"): the hrtimers that expired on the core, waiting for or in the interrupt
// that runs their callbacks -- hrtimer_interrupt runs every timer expired by then, so
// expiries that meet in one interrupt pay its entry and exit once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/host/cpu_core.h"

namespace nvmesim {

struct TimerExpiryItem {
  enum class Kind : uint8_t { queue_timer, drive_monitor, thread_wake };
  Kind kind = Kind::queue_timer;
  uint32_t index = 0;  // global queue, or drive
};

struct CoreTimerInterrupt {
  Task task;                            // hard-IRQ context, index = core, timer_irq set
  std::vector<TimerExpiryItem> expired;  // in expiry order
  std::size_t in_service = 0;            // the first items, run by the segment on the core
};

}  // namespace nvmesim
