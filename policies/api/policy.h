// The shape every completion policy has, and the parameter map it is built from.
//
// A queue policy is a value type with these members (checked by QueuePolicy below):
//   kName, kParams (std::array of ParamSpec), kUsesVector (false: polled queue, no MSI-X),
//   kAppPolls (the submitting task reaps by polling the CQ),
//   explicit Policy(const ParamMap&)                  built from validated parameters
//   static std::string check(const ParamMap&, uint32_t queue_depth)  "" or an error
//                                                     naming the parameter (cross-field)
//   template <QueueEnv Q> void on_interrupt(Q&)        hard-IRQ context
//   template <QueueEnv Q> ThreadStep on_thread(Q&)     IRQ-thread context
//   template <QueueEnv Q> TimerStep on_timer(Q&)       softirq context (hrtimer/irq_poll)
//   template <QueueEnv Q> uint32_t on_app_poll(Q&)     the task's reap loop (polled queues)
//   std::string_view mode() const                     current mode, for the timeline
//
// A drive policy (policy C, see policies/coalesce_adaptive.h) works per controller and
// has, besides kName, kParams, the ParamMap constructor, check() and mode():
//   template <DriveEnv D> Duration on_monitor(D&)      periodic-monitor context: one
//                                                     cycle; returns the time until the
//                                                     runner calls it again (first call
//                                                     at the start of the run)
// Its queues run a queue policy of the same name (registry.h: PolicyInfo::per_drive).
//
// Counting convention (QueueCounters): what only the policy can judge, the policy
// counts: irq_useful, irq_spurious, irq_while_polling, poll_useful, poll_empty, backoffs.
// What an env op or a runner step does, the env/runner counts where it does it:
// completions (drain, drain_budget), masks, unmasks, thread_wakeups, mode_changes (the
// ops of those names), timer_expiries (each on_timer call), sleeps (each
// ThreadStep::sleep carried out). Neither counts the other's.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "policies/api/params.h"
#include "policies/api/queue_env.h"
#include "policies/api/steps.h"

namespace nvmesim::policy {

using ParamMap = std::map<std::string, int64_t, std::less<>>;

// Value of a declared parameter: the given one or its default.
inline int64_t param(const ParamMap& p, std::span<const ParamSpec> specs, std::string_view name) {
  if (auto it = p.find(name); it != p.end()) return it->second;
  for (const auto& s : specs)
    if (s.name == name) return s.default_value;
  return 0;  // unreachable for a declared name; the loader rejects undeclared ones
}

}  // namespace nvmesim::policy
