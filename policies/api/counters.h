// Per-queue counters a policy run reports. Plain increments next to the work they count.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

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

  // Every counter by name, for reports and for differences over a window.
  static constexpr std::array<std::pair<const char*, uint64_t QueueCounters::*>, 13> kFields{{
      {"irq_useful", &QueueCounters::irq_useful},
      {"irq_spurious", &QueueCounters::irq_spurious},
      {"irq_while_polling", &QueueCounters::irq_while_polling},
      {"completions", &QueueCounters::completions},
      {"poll_useful", &QueueCounters::poll_useful},
      {"poll_empty", &QueueCounters::poll_empty},
      {"sleeps", &QueueCounters::sleeps},
      {"timer_expiries", &QueueCounters::timer_expiries},
      {"thread_wakeups", &QueueCounters::thread_wakeups},
      {"backoffs", &QueueCounters::backoffs},
      {"mode_changes", &QueueCounters::mode_changes},
      {"masks", &QueueCounters::masks},
      {"unmasks", &QueueCounters::unmasks},
  }};

  QueueCounters operator-(const QueueCounters& start) const {
    QueueCounters d = *this;
    for (const auto& [name, field] : kFields) d.*field -= start.*field;
    return d;
  }
};

}  // namespace nvmesim::policy
