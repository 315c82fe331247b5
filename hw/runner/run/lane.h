// What one job clone of `nvmesim-hw run` needs: its queue pair, buffers, queue env and
// I/O pattern, and what its submitting task saw (an error, when it stopped, the state
// at the start and the end of the measured window).
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <memory>

#include "hw/nvme/queue.h"
#include "hw/runner/env/queue_env.h"
#include "hw/runner/io/io_buffers.h"
#include "hw/runner/io/io_pattern.h"
#include "policies/api/counters.h"
#include "vocab/time.h"

namespace nvmesim::hw {

struct Lane {
  std::unique_ptr<nvme::QueuePair> qp;
  std::unique_ptr<IoBuffers> buffers;
  std::unique_ptr<HwQueueEnv> env;
  std::unique_ptr<IoPattern> pattern;
  std::exception_ptr error;
  Time stopped_at = Time::never();
  // Taken by the submitting task with the queue mutex held.
  struct Snapshot {
    bool taken = false;
    policy::QueueCounters counters;
    uint64_t held = 0;
    std::array<int64_t, 4> cpu_ns{};  // hardirq, softirq, irq_thread, app threads
  };
  Snapshot window_start, window_end;
};

}  // namespace nvmesim::hw
