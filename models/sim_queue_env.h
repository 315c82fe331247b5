// The simulator's implementation of the policy API's QueueEnv: a policy hook's view of
// one queue pair while it runs in one context on one core. Each operation does what it
// does to the model and adds its cost, from the host profile, to the running segment.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "models/cpu_core.h"
#include "models/host_queue.h"
#include "policies/api/queue_env.h"
#include "sim/time.h"

namespace nvmesim {

class System;

class SimQueueEnv {
 public:
  // `offset`: CPU time the context spends before the hook runs (e.g. interrupt entry),
  // so that a drain knows how far into the segment it is.
  SimQueueEnv(System& sys, HostQueue& q, Level context, Duration offset = Duration::zero())
      : sys_(&sys), q_(&q), ctx_(context), offset_(offset) {}

  Time now() const;
  uint32_t inflight() const { return nvme::driver_inflight(q_->sq, q_->cq); }
  uint32_t depth() const { return q_->sq.depth; }
  bool cqe_pending() const { return q_->mem.cq[q_->cq.head].phase == q_->cq.phase; }
  uint32_t drain() { return drain_budget(UINT32_MAX); }
  uint32_t drain_budget(uint32_t budget);
  bool poll_check();
  void mask_vector();
  void unmask_vector();
  void wake_thread();
  void arm_timer(Duration d);
  void cancel_timer() { ++q_->timer_gen; }
  policy::QueueCounters& counters() { return q_->counters; }
  void mode_change(std::string_view from, std::string_view to, std::string reason);

  Duration cost() const { return cost_; }
  void add_cost(Duration d) { cost_ += d; }

 private:
  System* sys_;
  HostQueue* q_;
  Level ctx_;
  Duration offset_;
  Duration cost_;
};

static_assert(policy::QueueEnv<SimQueueEnv>);

}  // namespace nvmesim
