// The shape every completion policy has, and the parameter map it is built from.
//
// A queue policy is a value type with these members (checked by QueuePolicy below):
//   kName, kUsesVector (false: polled queue, no MSI-X), kAppPolls (the submitting task
//   reaps by polling the CQ), optionally kWatchesLatency (true: the runner adds each
//   completion's latency to QueueEnv::latencies(); absent: false, nothing is added),
//   Params                                            its parameters (api/params.h): a
//                                                     struct with a kFields table
//   explicit Policy(const Params&)                    built from validated parameters
//   static std::optional<ParamError> check(const Params&, uint32_t queue_depth)
//                                                     cross-field check; the error names
//                                                     the parameter it blames
//   template <QueueEnv Q> void on_interrupt(Q&)        hard-IRQ context
//   template <QueueEnv Q> ThreadStep on_thread(Q&)     IRQ-thread context
//   template <QueueEnv Q> TimerStep on_timer(Q&)       softirq context (hrtimer/irq_poll)
//   template <QueueEnv Q> uint32_t on_app_poll(Q&)     the task's reap loop (polled queues)
//   std::string_view mode() const                     current mode, for the timeline
//
// A drive policy (policy C, see policies/coalesce_adaptive.h) works per controller and
// has, besides kName, Params, the Params constructor, check() and mode():
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
// The concepts QueuePolicy and DrivePolicy (api/policy_concepts.h) state this shape;
// the registry and the runners check their policy types against them.
#pragma once

#include "policies/api/params.h"
#include "policies/api/policy_concepts.h"
#include "policies/api/queue_env.h"
#include "policies/api/steps.h"
