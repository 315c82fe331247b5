// One core's softirq: deferred work run in softirq context, one item per segment, in the
// order it was raised: a queue's expired hrtimer (the policy's on_timer, irq_poll) or a
// drive policy's monitor. Where further deferred work (ksoftirqd) would be queued.
#pragma once

#include <cstdint>
#include <deque>

#include "models/cpu_core.h"

namespace nvmesim {

struct SoftirqItem {
  enum class Kind : uint8_t { queue_timer, drive_monitor };
  Kind kind = Kind::queue_timer;
  uint32_t index = 0;  // global queue, or drive
};

struct CoreSoftirq {
  Task task;
  std::deque<SoftirqItem> work;
};

}  // namespace nvmesim
