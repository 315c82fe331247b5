// Policy A `watermark`: inflight-watermark adaptive polling in the queue's IRQ thread.
//
// Hard IRQ (on_interrupt), in this order:
//   1. Queue already polling: return at once; counted as irq_while_polling (handled,
//      empty: neither irq_useful nor irq_spurious).
//   2. Drain as B0. Nothing found: irq_spurious, return. Else irq_useful.
//   3. inflight < inflight_high: return (interrupt mode).
//   4. inflight >= inflight_high: set polling, mask the vector (disable_irq_nosync),
//      wake the IRQ thread. Mode irq -> thread_poll.
// IRQ thread (on_thread, one call per loop iteration):
//   - First call after a wake-up samples max_loops and sets low_checks = 0.
//   - When max_loops iterations have been done (every iteration counts, with or without
//     work), the next call stops instead of iterating.
//   - CQE pending (poll_check): drain, low_checks = 0, return ThreadStep::resched()
//     (cond_resched, then the next iteration). poll_useful.
//   - Else (poll_empty): inflight < inflight_low -> low_checks += 1 and stop when it
//     reaches low_inflight_checks (3), without sleeping; inflight >= inflight_low ->
//     low_checks = 0. Then return ThreadStep::sleep(interval_us) (fsleep; the runner
//     applies the busy-wait/hrtimer split, the usleep_range slack and the wake-up latency
//     of the host profile).
//   - Stop: clear polling, unmask the vector (enable_irq, which replays a held
//     interrupt), return ThreadStep::park(). Mode thread_poll -> irq.
//
// Runner: eligible queues are I/O queues with a dedicated MSI-X vector, when the
// controller has more than one vector and threaded interrupts are not in use; every
// other queue runs IrqPolicy (B0). on_interrupt in hard IRQ, on_thread in the queue's
// real-time IRQ thread (woken by wake_thread). Parameters are per controller.
//
// Counters: the policy counts irq_useful, irq_spurious, irq_while_polling, poll_useful
// and poll_empty; the env ops and the runner count the rest (policies/api/policy.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "policies/api/policy.h"

namespace nvmesim::policy {

// WatermarkPolicy's parameters (defaults are the initialisers).
struct WatermarkParams {
  int64_t inflight_high = 32;
  int64_t inflight_low = 3;
  int64_t interval_us = 30;
  int64_t max_loops = 1000;
  static constexpr std::array<ParamField<WatermarkParams>, 4> kFields{{
      {"inflight_high", &WatermarkParams::inflight_high, 1, 65535, "commands",
       "after a useful hard-IRQ drain, switch to thread polling when inflight >= this; must "
       "be > inflight_low and < the queue depth"},
      {"inflight_low", &WatermarkParams::inflight_low, 1, 65535, "commands",
       "an empty thread check with inflight below this is a low-inflight check"},
      {"interval_us", &WatermarkParams::interval_us, 1, 1000000, "us", "fsleep between empty thread checks"},
      {"max_loops", &WatermarkParams::max_loops, 1, 1000000000, "iterations",
       "thread loop iterations per wake-up (sampled at wake-up), with or without work"},
  }};
};

class WatermarkPolicy {
 public:
  static constexpr std::string_view kName = "watermark";
  using Params = WatermarkParams;
  static constexpr uint32_t kLowInflightChecks = 3;  // constant low_inflight_checks
  static constexpr bool kUsesVector = true;
  static constexpr bool kAppPolls = false;

  static constexpr std::string_view kModeIrq = "irq";
  static constexpr std::string_view kModePoll = "thread_poll";

  explicit WatermarkPolicy(const Params& p = {})
      : high_(static_cast<uint32_t>(p.inflight_high)),
        low_(static_cast<uint32_t>(p.inflight_low)),
        interval_(Duration::us(p.interval_us)),
        max_loops_(static_cast<uint64_t>(p.max_loops)) {}

  static std::optional<ParamError> check(const Params& p, uint32_t queue_depth) {
    if (p.inflight_high <= p.inflight_low)
      return ParamError{"inflight_high", "watermark: inflight_high (" + std::to_string(p.inflight_high) +
                                             ") must be greater than inflight_low (" +
                                             std::to_string(p.inflight_low) + ")"};
    if (p.inflight_high >= static_cast<int64_t>(queue_depth))
      return ParamError{"inflight_high", "watermark: inflight_high (" + std::to_string(p.inflight_high) +
                                             ") must be smaller than the queue depth (" +
                                             std::to_string(queue_depth) + ")"};
    return std::nullopt;
  }

  template <QueueEnv Q>
  void on_interrupt(Q& q) {
    auto& c = q.counters();
    if (polling_) {  // 1
      ++c.irq_while_polling;
      return;
    }
    if (q.drain() == 0) {  // 2
      ++c.irq_spurious;
      return;
    }
    ++c.irq_useful;
    const uint32_t inflight = q.inflight();
    if (inflight < high_) return;  // 3
    polling_ = true;               // 4
    q.mask_vector();
    q.wake_thread();
    q.mode_change(kModeIrq, kModePoll,
                  "watermark: inflight " + std::to_string(inflight) + " >= inflight_high " +
                      std::to_string(high_) + " after drain");
  }

  template <QueueEnv Q>
  ThreadStep on_thread(Q& q) {
    if (!polling_) return ThreadStep::park();  // woken with nothing to do
    if (!running_) {                           // thread starts: sample max_loops
      running_ = true;
      loops_left_ = max_loops_;
      low_checks_ = 0;
    }
    if (loops_left_ == 0)
      return stop(q, "watermark: max_loops " + std::to_string(max_loops_) + " used up");
    --loops_left_;
    auto& c = q.counters();
    if (q.poll_check()) {
      ++c.poll_useful;
      q.drain();
      low_checks_ = 0;
      return ThreadStep::resched();
    }
    ++c.poll_empty;
    const uint32_t inflight = q.inflight();
    if (inflight < low_) {
      if (++low_checks_ >= kLowInflightChecks)
        return stop(q, "watermark: " + std::to_string(kLowInflightChecks) +
                           " low-inflight checks (inflight " + std::to_string(inflight) +
                           " < inflight_low " + std::to_string(low_) + ")");
    } else {
      low_checks_ = 0;
    }
    return ThreadStep::sleep(interval_);
  }

  template <QueueEnv Q>
  TimerStep on_timer(Q&) { return TimerStep::stop(); }
  template <QueueEnv Q>
  uint32_t on_app_poll(Q&) { return 0; }
  std::string_view mode() const { return polling_ ? kModePoll : kModeIrq; }

  // For tests and traces.
  bool polling() const { return polling_; }
  uint32_t low_checks() const { return low_checks_; }

 private:
  template <QueueEnv Q>
  ThreadStep stop(Q& q, std::string reason) {
    polling_ = false;
    running_ = false;
    low_checks_ = 0;
    q.mode_change(kModePoll, kModeIrq, std::move(reason));
    q.unmask_vector();
    return ThreadStep::park();
  }

  uint32_t high_;
  uint32_t low_;
  Duration interval_;
  uint64_t max_loops_;

  bool polling_ = false;   // the queue's polling state (nvmeq flag)
  bool running_ = false;   // the IRQ thread is inside its loop
  uint64_t loops_left_ = 0;
  uint32_t low_checks_ = 0;
};

}  // namespace nvmesim::policy
