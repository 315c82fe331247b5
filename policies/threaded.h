// B1 `threaded`: nvme-pci with use_threaded_interrupts=1. The hard-IRQ handler
// (nvme_irq_check) only looks at the head CQE's phase tag: if a CQE is pending it wakes
// the queue's real-time IRQ thread, which drains the CQ; otherwise the interrupt is
// spurious. The vector stays enabled while the thread runs (pci_request_irq with a
// primary handler does not set IRQF_ONESHOT), so an interrupt taken while the thread
// runs wakes it again and the runner re-runs it once it parks.
//
// Runner: hard IRQ -> on_interrupt; each thread wake-up -> on_thread, which returns
// ThreadStep::park() after one drain. Counters: this policy counts irq_useful (found a
// CQE and handed it on) and irq_spurious; wake_thread counts thread_wakeups.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "policies/api/policy.h"

namespace nvmesim::policy {

class ThreadedPolicy {
 public:
  static constexpr std::string_view kName = "threaded";
  using Params = NoParams;
  static constexpr bool kUsesVector = true;
  static constexpr bool kAppPolls = false;

  explicit ThreadedPolicy(const Params& = {}) {}
  static std::optional<ParamError> check(const Params&, uint32_t) { return std::nullopt; }

  // Hard IRQ: check only, hand the work to the thread.
  template <QueueEnv Q>
  void on_interrupt(Q& q) {
    if (!q.cqe_pending()) {
      ++q.counters().irq_spurious;
      return;
    }
    ++q.counters().irq_useful;
    q.wake_thread();
  }

  // IRQ thread: one drain per wake-up (nvme_irq), then sleep until woken again.
  template <QueueEnv Q>
  ThreadStep on_thread(Q& q) {
    q.drain();
    return ThreadStep::park();
  }

  template <QueueEnv Q>
  TimerStep on_timer(Q&) { return TimerStep::stop(); }
  template <QueueEnv Q>
  uint32_t on_app_poll(Q&) { return 0; }
  std::string_view mode() const { return "irq_thread"; }
};

}  // namespace nvmesim::policy
