// The seam between policies and whatever runs them. A policy sees one NVMe I/O queue
// pair through a QueueEnv and one controller through a DriveEnv; the simulator and the
// hw runner each provide a type that models these concepts. Policies are templates over
// them (no virtual calls on the hot path) and include nothing else of either runner.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>

#include "policies/api/counters.h"
#include "policies/api/latency_buckets.h"
#include "vocab/time.h"

namespace nvmesim::policy {

// Operations on one queue pair, valid inside a policy hook. Every operation costs what
// it costs in the context the hook runs in (hard IRQ, IRQ thread, softirq, task).
template <class Q>
concept QueueEnv = requires(Q& q, const Q& cq, Duration d, uint32_t n, uint64_t w, std::string_view s,
                            std::string reason) {
  { cq.now() } -> std::same_as<Time>;
  { cq.inflight() } -> std::convertible_to<uint32_t>;  // as the driver computes it
  { cq.depth() } -> std::convertible_to<uint32_t>;
  { cq.cqe_pending() } -> std::same_as<bool>;          // head entry's phase matches
  // CQEs consumed since the start on every I/O queue of this queue's controller (a
  // per-controller counter, as the driver could keep beside its queues).
  { cq.drive_completions() } -> std::convertible_to<uint64_t>;
  // One word the queues of this queue's controller share, 0 at the start (a field of the
  // driver's per-controller struct, read and written with READ_ONCE / WRITE_ONCE): where
  // a queue policy decides for the drive, the first queue to decide leaves it there.
  { cq.drive_word() } -> std::convertible_to<uint64_t>;
  q.set_drive_word(w);
  { q.drain() } -> std::same_as<uint32_t>;             // consume all visible, one CQ doorbell
  { q.drain_budget(n) } -> std::same_as<uint32_t>;     // consume at most n
  { q.poll_check() } -> std::same_as<bool>;            // cqe_pending() with its cost
  q.mask_vector();     // disable_irq_nosync: lazy, replayed on unmask
  q.unmask_vector();   // enable_irq
  q.wake_thread();     // wake this queue's IRQ thread
  q.arm_timer(d);      // (re)arm this queue's hrtimer; expiry runs on_timer in softirq
  q.cancel_timer();
  { q.counters() } -> std::same_as<QueueCounters&>;
  // Completion latencies since the policy last cleared them, kept only for a policy whose
  // kWatchesLatency is true (else never added to): api/latency_buckets.h.
  { q.latencies() } -> std::same_as<LatencyBuckets&>;
  q.mode_change(s, s, std::move(reason));  // timeline entry: from, to, why
};

// Operations on one controller (policy C works per drive).
template <class D>
concept DriveEnv = requires(D& d, const D& cd, uint32_t thr, uint32_t time100us, std::string_view s,
                            std::string reason) {
  { cd.now() } -> std::same_as<Time>;
  { cd.completions_total() } -> std::convertible_to<uint64_t>;  // since start, all I/O queues
  { cd.inflight_total() } -> std::convertible_to<uint64_t>;     // sum of driver inflight
  // Time integral of inflight_total, in I/O x ns: the average over a cycle is
  // (integral(t1) - integral(t0)) / (t1 - t0).
  { cd.inflight_integral() } -> std::convertible_to<double>;
  { cd.io_queue_count() } -> std::convertible_to<uint32_t>;
  // Set Features 08h (THR 0's based, TIME in 100 us units) for all I/O vectors; THR=0 or
  // TIME=0 turns coalescing off. Takes effect when the admin command completes.
  d.set_coalescing(thr, time100us);
  d.mode_change(s, s, std::move(reason));
};

}  // namespace nvmesim::policy
