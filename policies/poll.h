// B2 `poll`: polled queues (poll_queues=N with io_uring IOPOLL / fio hipri). The queue
// has no vector; the submitting task spins on its CQ when it reaps, each look at the CQ
// either finding CQEs (drained by the same reaper the IRQ path uses) or nothing.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "policies/api/policy.h"

namespace nvmesim::policy {

class PollPolicy {
 public:
  static constexpr std::string_view kName = "poll";
  using Params = NoParams;
  static constexpr bool kUsesVector = false;
  static constexpr bool kAppPolls = true;

  explicit PollPolicy(const Params& = {}) {}
  static std::optional<ParamError> check(const Params&, uint32_t) { return std::nullopt; }

  template <QueueEnv Q>
  void on_interrupt(Q&) {}  // no vector: never called
  template <QueueEnv Q>
  ThreadStep on_thread(Q&) { return ThreadStep::park(); }
  template <QueueEnv Q>
  TimerStep on_timer(Q&) { return TimerStep::stop(); }

  // One iteration of the task's blk_poll loop; returns CQEs consumed.
  template <QueueEnv Q>
  uint32_t on_app_poll(Q& q) {
    if (!q.poll_check()) {
      ++q.counters().poll_empty;
      return 0;
    }
    ++q.counters().poll_useful;
    return q.drain();
  }
  std::string_view mode() const { return "poll"; }
};

}  // namespace nvmesim::policy
