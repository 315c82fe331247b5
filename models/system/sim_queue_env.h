// The simulator's implementation of the policy API's QueueEnv: a policy hook's view of
// one queue pair while it runs in one context on one core. Each operation is done by the
// host model (the CQ reaper, the kernel services) and its CPU cost, from the host
// profile, is added to the running segment.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "models/host/cq_reaper.h"
#include "models/host/host_kernel.h"
#include "models/host/host_queue.h"
#include "policies/api/queue_env.h"
#include "vocab/context.h"
#include "vocab/time.h"

namespace nvmesim {

class SimQueueEnv {
 public:
  // `offset`: CPU time the context spends before the hook runs (e.g. interrupt entry),
  // so that a drain knows how far into the segment it is.
  SimQueueEnv(HostKernel& host, HostQueue& q, Context context, Duration offset = Duration::zero())
      : host_(&host), q_(&q), ctx_(context), offset_(offset) {}

  Time now() const { return host_->now(); }
  uint32_t inflight() const { return nvme::driver_inflight(q_->sq, q_->cq); }
  uint32_t depth() const { return q_->sq.depth; }
  bool cqe_pending() const { return CqReaper::cqe_pending(*q_) || host_->device(q_->drive).cqe_landed(q_->qid); }
  uint64_t drive_completions() const { return host_->drive(q_->drive).completions; }
  uint64_t drive_word() const { return host_->drive(q_->drive).policy_word; }
  void set_drive_word(uint64_t w) { host_->drive(q_->drive).policy_word = w; }
  uint32_t drain() { return drain_budget(UINT32_MAX); }
  uint32_t drain_budget(uint32_t budget) {
    Time t = now();
    CqReaper::Reaped r = host_->reaper().reap(*q_, ctx_, t, t + offset_ + cost_, budget);
    cost_ += r.cost;
    return r.count;
  }
  bool poll_check() {
    // At least 1 ns: a look at a CQ takes time, and at 0 a polling loop that finds nothing
    // would spin without simulated time passing (growing the event queue until memory ran
    // out). A profile may say 0 where nothing polls.
    cost_ += std::max(host_->host().poll_empty_check, Duration::ns(1));
    return cqe_pending();
  }
  void mask_vector() { cost_ += host_->mask_vector(*q_); }
  void unmask_vector() { cost_ += host_->unmask_vector(*q_); }
  void wake_thread() { cost_ += host_->wake_thread(*q_); }
  void arm_timer(Duration d) { cost_ += host_->arm_timer(*q_, d); }
  void cancel_timer() { host_->cancel_timer(*q_); }
  policy::QueueCounters& counters() { return q_->counters; }
  // Only a policy that watches them calls this (its queues have them).
  policy::LatencyBuckets& latencies() { return *q_->latencies; }
  void mode_change(std::string_view from, std::string_view to, std::string reason);

  Duration cost() const { return cost_; }
  void add_cost(Duration d) { cost_ += d; }

 private:
  HostKernel* host_;
  HostQueue* q_;
  Context ctx_;
  Duration offset_;
  Duration cost_;
};

static_assert(policy::QueueEnv<SimQueueEnv>);

}  // namespace nvmesim
