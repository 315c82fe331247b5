// Per-queue counters a policy run reports. Plain increments next to the work they count.
#pragma once

#include <cstdint>

namespace nvmesim::policy {

struct QueueCounters {
  uint64_t irq_useful = 0;        // hard IRQs that found work or handed it on
  uint64_t irq_spurious = 0;      // hard IRQs that found the CQ empty
  uint64_t irq_while_polling = 0; // hard IRQs that arrived while the queue polled
  uint64_t completions = 0;       // CQEs consumed by any context
  uint64_t poll_useful = 0;       // poll iterations that found CQEs
  uint64_t poll_empty = 0;        // poll iterations that found none
  uint64_t sleeps = 0;            // fsleep calls of an IRQ thread
  uint64_t timer_expiries = 0;    // hrtimer expiries serving this queue
  uint64_t thread_wakeups = 0;    // IRQ-thread wake-ups requested
  uint64_t backoffs = 0;          // policy entered a back-off period
  uint64_t mode_changes = 0;
  uint64_t masks = 0;
  uint64_t unmasks = 0;
};

}  // namespace nvmesim::policy
