// Host side of one simulated I/O queue pair: the driver's ring cursors, the vector's
// interrupt state as the kernel sees it, the queue's IRQ thread and hrtimer, the policy
// instance and its counters and mode timeline.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/host/cpu_core.h"
#include "models/host/queue_memory.h"
#include "models/system/ring_fifo.h"
#include "policies/api/counters.h"
#include "policies/api/steps.h"
#include "policies/registry.h"
#include "sim/rng.h"
#include "sim/timer_token.h"
#include "vocab/mode_timeline.h"
#include "vocab/nvme_ring.h"
#include "vocab/time.h"

namespace nvmesim {

struct HostQueue {
  // `rings`: QueueMemory::bytes(depth) of zero bytes that outlive the queue.
  HostQueue(uint32_t depth, std::byte* rings, policy::AnyQueuePolicy p) : mem(depth, rings), policy(std::move(p)) {
    sq.depth = depth;
    cq.depth = depth;
  }

  uint32_t index = 0;  // global
  uint32_t drive = 0;
  uint32_t qid = 0;    // within the drive; also its MSI-X vector on the device
  uint32_t core = 0;   // IRQ affinity (first core of the queue's CPU mask)
  bool polled = false; // no vector (poll queues)

  QueueMemory mem;
  nvme::SqCursor sq;
  nvme::CqCursor cq;

  // Kernel view of the vector.
  bool irq_disabled = false;   // disable_irq_nosync called, not yet enabled again
  bool irq_hw_masked = false;  // lazily masked in the MSI-X table by the flow handler
  bool irq_replay = false;     // an interrupt arrived while disabled: resend on enable
  bool apic_pending = false;   // another message arrived while this one was in service
  // Posted MSIs: the vector's bit in its CPU's descriptor (PIR) is set, and the role its
  // handler has in the notification that runs it: the first pays the interrupt's entry
  // and exit, the others only the demultiplexing (HostKernel, posted MSIs).
  bool pir = false;
  enum class PostedRole : uint8_t { none, leader, follower };
  PostedRole posted_role = PostedRole::none;
  // MSI-X messages on their way to the core, in arrival order: (arrival time, the event
  // sequence number taken when sent). Only the first has an event (HostKernel).
  RingFifo<std::pair<Time, uint64_t>> irq_arrivals;
  uint64_t lazy_masked = 0;    // interrupts that found the vector disabled (held for replay)

  Task hardirq;
  Task thread;
  bool thread_parked = true;   // asleep until wake_thread
  bool thread_parking = false;  // decided to park; its last segment is still on the core
  bool thread_rewake = false;   // woken during that segment: iterate again instead
  Duration thread_busy_wait;   // fsleep <= 10 us: udelay before the next iteration
  policy::ThreadStep thread_step;
  bool thread_step_is_wait = false;
  sim::TimerGeneration timer;        // the policy's hrtimer (arm_timer / cancel_timer)
  sim::TimerGeneration thread_sleep;  // the IRQ thread's usleep_range wake-up
  sim::Rng rng{0, 0};

  policy::AnyQueuePolicy policy;
  policy::QueueCounters counters;
  // Completion latencies for a policy that watches them (PolicyInfo::watches_latency):
  // submission to the drain that consumed the CQE. Null otherwise (1 KiB a queue).
  std::unique_ptr<policy::LatencyBuckets> latencies;
  std::vector<ModeChange> timeline;
  uint64_t timeline_dropped = 0;

  // Who submits here, fixed when the jobs are placed (JobModel::build): the one job that
  // does, if only one does (kNoSoleJob: several, none, or a replay, whose commands go to
  // their recorded queues), and whether every submitter runs on this queue's core. They
  // let a drain skip looking up each completion's job and core.
  static constexpr uint32_t kNoSoleJob = UINT32_MAX;
  uint32_t sole_job = kNoSoleJob;
  bool submitters_on_core = false;

  bool reaper_cold = false;  // the next drain starts on cold caches (after an interrupt, a timer, a switch-in)
  std::vector<uint32_t> drained;  // consumed CQEs handed on when the segment ends
  uint64_t submitted = 0;
  // blk-mq tags in use are the commands submitted and not yet reaped. nvme-pci gives a queue
  // of depth D D - 1 tags (nvme_pci_alloc_tag_set: queue_depth = q_depth - 1), so a job
  // deeper than that waits for a tag, and the CQ (D - 1 entries between head doorbells)
  // cannot overflow. The SQ's free slots are not that bound: a slot is free once fetched.
  bool out_of_tags() const { return submitted - counters.completions >= sq.depth - 1; }
};

}  // namespace nvmesim
