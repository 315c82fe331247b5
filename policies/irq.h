// B0 `irq`: plain interrupts, as nvme-pci does today. Every CQE posting makes the device
// send the queue's MSI-X message; the hard-IRQ handler drains the CQ. An interrupt that
// finds the CQ empty is spurious and still costs entry and exit (charged by the runner).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "policies/api/policy.h"

namespace nvmesim::policy {

// The hooks of a queue whose interrupts are handled as B0 and that has no IRQ thread,
// timer or polling task: irq, and the queues of coalesce and coalesce_adaptive (whose
// difference is in what the device is told, not in the host's handling).
struct B0Hooks {
  // Hard IRQ: drain, and count the interrupt useful or spurious.
  template <QueueEnv Q>
  void on_interrupt(Q& q) {
    if (q.drain() == 0)
      ++q.counters().irq_spurious;
    else
      ++q.counters().irq_useful;
  }
  template <QueueEnv Q>
  ThreadStep on_thread(Q&) { return ThreadStep::park(); }
  template <QueueEnv Q>
  TimerStep on_timer(Q&) { return TimerStep::stop(); }
  template <QueueEnv Q>
  uint32_t on_app_poll(Q&) { return 0; }
};

class IrqPolicy : public B0Hooks {
 public:
  static constexpr std::string_view kName = "irq";
  using Params = NoParams;
  static constexpr bool kUsesVector = true;
  static constexpr bool kAppPolls = false;

  explicit IrqPolicy(const Params& = {}) {}
  static std::optional<ParamError> check(const Params&, uint32_t) { return std::nullopt; }

  std::string_view mode() const { return "irq"; }
};

}  // namespace nvmesim::policy
