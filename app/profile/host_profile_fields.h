// The host profile's tables (app/profile/profile_fields.h): its flat scalar fields, in the order
// the loader reads them (after "cores" and the engines; the first error wins, so the
// order is behaviour), and the tables of each engine's costs (libaio, io_uring) and of
// the delivery mechanisms' objects (platform, softirq_limits, irq_poll, completion_ipi).
// Not in a table yet: the name, cores and irq_effective_cpu, read in
// app/profile/host_profile_json.cc and written in app/scenario/scenario_json.cc. posted_demux_ns is
// written back only when the host has a platform (scenario_to_json removes it otherwise).
#pragma once

#include "app/profile/profile_fields.h"
#include "vocab/profiles.h"

namespace nvmesim {

using HostField = ProfileField<HostProfile, TimerExpiry, TimerSlack, CqeCost>;

inline constexpr HostField kHostFields[] = {
    {.key = "doorbell_mmio_ns", .member = &HostProfile::doorbell_mmio, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "doorbell mmio"},
    {.key = "irq_entry_ns", .member = &HostProfile::irq_entry, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "irq entry"},
    {.key = "irq_exit_ns", .member = &HostProfile::irq_exit, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "irq exit"},
    {.key = "irq_per_cqe_ns", .member = &HostProfile::irq_per_cqe, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "irq per cqe"},
    {.key = "poll_per_cqe_ns", .member = &HostProfile::poll_per_cqe, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "poll per cqe"},
    {.key = "poll_empty_check_ns", .member = &HostProfile::poll_empty_check, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "one look at a CQ that finds nothing (a polling loop charges at least 1 ns a look)"},
    {.key = "wakeup_ns", .member = &HostProfile::wakeup, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "wakeup"},
    {.key = "context_switch_ns", .member = &HostProfile::context_switch, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "context switch"},
    {.key = "wakeup_latency_ns", .member = &HostProfile::wakeup_latency, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "wakeup latency"},
    {.key = "lazy_mask_ns", .member = &HostProfile::lazy_mask, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "lazy mask"},
    {.key = "irq_disable_ns", .member = &HostProfile::irq_disable, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "irq disable"},
    {.key = "irq_enable_ns", .member = &HostProfile::irq_enable, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "irq enable"},
    {.key = "intms_mmio_ns", .member = &HostProfile::intms_mmio, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "intms mmio"},
    {.key = "softirq_entry_ns", .member = &HostProfile::softirq_entry, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "softirq entry"},
    {.key = "hrtimer_arm_ns", .member = &HostProfile::hrtimer_arm, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "hrtimer arm"},
    {.key = "hrtimer_expiry_ns", .member = &HostProfile::hrtimer_expiry, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "hrtimer expiry"},
    {.key = "timer_slack_min_ns", .member = &HostProfile::timer_slack_min, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "timer slack min"},
    {.key = "cond_resched_ns", .member = &HostProfile::cond_resched, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "cond resched"},
    {.key = "fsleep_busy_max_ns", .member = &HostProfile::fsleep_busy_max, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "fsleep busy max"},
    {.key = "admin_submit_ns", .member = &HostProfile::admin_submit, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "admin submit"},
    {.key = "irq_indirect_ns", .member = &HostProfile::irq_indirect, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "cache/TLB/branch-predictor pollution per interrupt, paid by the next application or IRQ-thread "
            "segment on the core; 0 switches it off"},
    {.key = "cqe_work_ns", .member = &HostProfile::cqe_work, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "completion work per CQE, warm caches, any context (cqe_cost same_code)"},
    {.key = "cqe_cold_ns", .member = &HostProfile::cqe_cold, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "extra per drain that starts on cold caches: after an interrupt or a wake-up (cqe_cost same_code)"},
    {.key = "task_work_add_ns", .member = &HostProfile::task_work_add, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "queueing one CQE's task_work, charged to the completer, when posting is in the task"},
    {.key = "switch_out_ns", .member = &HostProfile::switch_out, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "a task that blocks leaves the core (schedule out)"},
    {.key = "idle_entry_ns", .member = &HostProfile::idle_entry, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "the core enters its idle state when nothing is runnable"},
    {.key = "idle_exit_ns", .member = &HostProfile::idle_exit, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "C-state exit latency: what runs first on a core woken from idle waits this long"},
    {.key = "posted_demux_ns", .member = &HostProfile::posted_demux, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "posted MSIs: the notification handler's work per pending vector (PIR exchange, dispatch without an "
            "IDT entry)"},
    {.key = "fsleep_slack_pct", .member = &HostProfile::fsleep_slack_pct, .unit = "%", .min = 0, .max = 100,
     .doc = "usleep_range(us, us + us * pct / 100)"},
    {.key = "timer_expiry", .member = &HostProfile::timer_expiry, .choices = kTimerExpiryNames,
     .doc = "folded: hrtimer_expiry_ns is the whole cost of an expiry (the default); interrupt: each expiry is a "
            "local timer interrupt (entry, exit, hrtimer_expiry_ns per expired timer, indirect cost)"},
    {.key = "timer_slack", .member = &HostProfile::timer_slack, .choices = kTimerSlackNames,
     .doc = "where an IRQ thread's usleep_range ends: uniformly in its range (the default), at its start (RT "
            "tasks get no slack since Linux 6.3), or at its end"},
    {.key = "cqe_cost", .member = &HostProfile::cqe_cost, .choices = kCqeCostNames,
     .doc = "by_context: irq_per_cqe_ns in hard IRQ, poll_per_cqe_ns elsewhere (the default); same_code: "
            "cqe_work_ns in every context plus cqe_cold_ns once per drain that starts on cold caches"},
};

// The costs of one engine: the host profile's "libaio" and "io_uring" objects.
using EngineField = ProfileField<EngineCosts, CompletionPosting>;

inline constexpr EngineField kEngineFields[] = {
    {.key = "syscall_ns", .member = &EngineCosts::syscall, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "one kernel entry and exit"},
    {.key = "submit_per_io_ns", .member = &EngineCosts::submit_per_io, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "request setup + SQE write"},
    {.key = "reap_per_io_ns", .member = &EngineCosts::reap_per_io, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "user-space completion handling"},
    {.key = "post_per_io_ns", .member = &EngineCosts::post_per_io, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "posting to the aio/io_uring ring, by the completing context"},
    {.key = "completion", .member = &EngineCosts::posting, .choices = kCompletionPostingNames,
     .doc = "where completions are posted to the job's ring and when a blocked job is woken: by the completing "
            "context and at the job's minimum (libaio since Linux 6.8; the default), by the completing context "
            "every time (libaio before 6.8), in the task's context with a wake-up per completion batch (io_uring "
            "task_work without DEFER_TASKRUN), in the task's context with a wake-up at the minimum (io_uring with "
            "DEFER_TASKRUN)"},
};

// The delivery mechanisms' objects (each absent: off). Read with the defaults their
// reader sets first where those differ from the struct's (app/profile/host_profile_json.cc).
using PlatformField = ProfileField<PlatformSpec, InterruptRemapping>;
inline constexpr PlatformField kPlatformFields[] = {
    {.key = "sockets", .member = &PlatformSpec::sockets, .min = 1, .max = 64,
     .doc = "the host's cores split evenly over them, in order; drive i sits on socket i % sockets unless the "
            "drive says"},
    {.key = "drives_per_root_complex", .member = &PlatformSpec::drives_per_root_complex, .min = 1, .max = 64,
     .doc = "a socket's drives fill its root complexes this many at a time"},
    {.key = "interrupt_remapping", .member = &PlatformSpec::remapping, .choices = kInterruptRemappingNames,
     .doc = "remappable: every MSI an interrupt of its own, strongly ordered with DMA (the default); posted: "
            "intremap=posted_msi (a scenario's intremap sets it too); off: no platform model"},
    {.key = "drain_ns", .member = &PlatformSpec::drain, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "one drain of the earlier DMA writes before a root complex sends the remappable interrupts waiting "
            "when it starts"},
    {.key = "message_ns", .member = &PlatformSpec::message, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "per remappable interrupt a root complex sends, after the drain"},
    {.key = "post_ns", .member = &PlatformSpec::post, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "posted: per MSI written into its CPU's posted-interrupt descriptor"},
    {.key = "socket_message_ns", .member = &PlatformSpec::socket_message, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "per interrupt (or posted notification) the socket delivers to a core, one at a time"},
    {.key = "latency_ns", .member = &PlatformSpec::latency, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "from the socket to the core, holding nothing up"},
};

using SoftirqLimitsField = ProfileField<SoftirqLimits>;
inline constexpr SoftirqLimitsField kSoftirqLimitsFields[] = {
    {.key = "max_restart", .member = &SoftirqLimits::max_restart, .min = 0, .max = 1000000,
     .doc = "MAX_SOFTIRQ_RESTART (10)"},
    {.key = "max_time_ns", .member = &SoftirqLimits::max_time, .unit = "ns", .min = 1, .max = kMaxLatencyNs,
     .doc = "MAX_SOFTIRQ_TIME (2 ms)"},
};

using IrqPollField = ProfileField<IrqPollSpec>;
inline constexpr IrqPollField kIrqPollFields[] = {
    {.key = "budget_per_cpu", .member = &IrqPollSpec::budget_per_cpu, .min = 0, .max = 1048576,
     .doc = "irq_poll_budget shared by the queues polled on a CPU per softirq pass (256); 0: off"},
    {.key = "rearm_from_poll_end", .member = &IrqPollSpec::rearm_from_poll_end,
     .doc = "the poll timer's period counts from the poll's end"},
};

using CompletionIpiField = ProfileField<CompletionIpiSpec>;
inline constexpr CompletionIpiField kCompletionIpiFields[] = {
    {.key = "cores_per_llc", .member = &CompletionIpiSpec::cores_per_llc, .min = 0, .max = 4096,
     .doc = "cores per last-level cache; 0: one cache for all (off)"},
    {.key = "send_ns", .member = &CompletionIpiSpec::send, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "sender's cost per IPI"},
    {.key = "latency_ns", .member = &CompletionIpiSpec::latency, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "IPI send to the target core taking it"},
    {.key = "remote_per_cqe_ns", .member = &CompletionIpiSpec::remote_per_cqe, .unit = "ns", .min = 0, .max = kMaxCostNs,
     .doc = "end-of-request work on the submitting core"},
};

}  // namespace nvmesim
