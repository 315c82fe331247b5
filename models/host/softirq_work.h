// One core's softirq: deferred work run in softirq context, one item per segment, in the
// order it was raised: a queue's expired hrtimer (the policy's on_timer, irq_poll), a
// queue that irq_poll polls again in the same run, a drive policy's monitor, or
// requests that another core's interrupt completed and sent here (BLOCK_SOFTIRQ). What a
// run of __do_softirq does not finish goes to the core's ksoftirqd (softirq_run.h).
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "models/host/cpu_core.h"
#include "models/host/softirq_run.h"

namespace nvmesim {

struct SoftirqItem {
  enum class Kind : uint8_t { queue_timer, drive_monitor, irq_poll_again, block_done, none };
  Kind kind = Kind::queue_timer;
  uint32_t index = 0;       // global queue, or drive
  uint32_t generation = 0;  // irq_poll_again: the queue's timer generation it belongs to
};

struct CoreSoftirq {
  Task task;       // softirq context, on the way out of an interrupt
  Task ksoftirqd;  // the core's ksoftirqd: an ordinary (CFS) task
  std::deque<SoftirqItem> work;
  SoftirqRun run;               // the run of the softirq task in progress
  SoftirqItem current;          // the softirq task's item in its segment
  SoftirqItem ksoftirqd_current;
  bool ksoftirqd_in_segment = false;  // in_interrupt(): a raise does not start a run
  int64_t poll_budget_left = 0;       // irq_poll's per-CPU budget in the current pass
  uint64_t handed_to_ksoftirqd = 0;   // runs that ended by waking ksoftirqd
  // blk-mq's per-CPU list of requests completed elsewhere (blk_cpu_done), and what the
  // softirq task's and ksoftirqd's block_done items took from it.
  std::vector<uint32_t> remote_done;
  std::vector<uint32_t> remote_taken;
  std::vector<uint32_t> ksoftirqd_remote_taken;
  uint64_t completion_ipis = 0;
};

}  // namespace nvmesim
