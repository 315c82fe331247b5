#include "app/scenario_json.h"

#include "app/device_profile_json.h"
#include "models/platform_placement.h"

namespace nvmesim {
using nlohmann::json;

namespace {

json engine_to_json(const EngineCosts& e) {
  return {{"syscall_ns", e.syscall.count_ns()},
          {"submit_per_io_ns", e.submit_per_io.count_ns()},
          {"reap_per_io_ns", e.reap_per_io.count_ns()},
          {"post_per_io_ns", e.post_per_io.count_ns()},
          {"completion", choice_name(kCompletionPostingNames, e.posting)}};
}


}  // namespace

// Long on purpose (~115 lines): one line per scenario field, in the schema's order, so a
// field added to the schema is added here beside its neighbours.
json scenario_to_json(const Scenario& sc) {
  json j;
  j["name"] = sc.name;
  j["seed"] = sc.seed;
  j["duration_us"] = sc.duration.count_ns() / 1000;
  j["warmup_us"] = sc.warmup.count_ns() / 1000;
  if (!sc.warmup_covers_policy) j["warmup_covers_policy"] = false;
  j["io_queues"] = sc.io_queues;
  j["queue_depth"] = sc.queue_depth;
  const HostProfile& h = sc.host;
  j["host"] = {{"name", h.name},
               {"cores", h.cores},
               {"libaio", engine_to_json(h.libaio)},
               {"io_uring", engine_to_json(h.io_uring)},
               {"doorbell_mmio_ns", h.doorbell_mmio.count_ns()},
               {"irq_entry_ns", h.irq_entry.count_ns()},
               {"irq_exit_ns", h.irq_exit.count_ns()},
               {"irq_per_cqe_ns", h.irq_per_cqe.count_ns()},
               {"poll_per_cqe_ns", h.poll_per_cqe.count_ns()},
               {"poll_empty_check_ns", h.poll_empty_check.count_ns()},
               {"wakeup_ns", h.wakeup.count_ns()},
               {"context_switch_ns", h.context_switch.count_ns()},
               {"wakeup_latency_ns", h.wakeup_latency.count_ns()},
               {"lazy_mask_ns", h.lazy_mask.count_ns()},
               {"irq_disable_ns", h.irq_disable.count_ns()},
               {"irq_enable_ns", h.irq_enable.count_ns()},
               {"intms_mmio_ns", h.intms_mmio.count_ns()},
               {"softirq_entry_ns", h.softirq_entry.count_ns()},
               {"hrtimer_arm_ns", h.hrtimer_arm.count_ns()},
               {"hrtimer_expiry_ns", h.hrtimer_expiry.count_ns()},
               {"timer_slack_min_ns", h.timer_slack_min.count_ns()},
               {"cond_resched_ns", h.cond_resched.count_ns()},
               {"fsleep_slack_pct", h.fsleep_slack_pct},
               {"fsleep_busy_max_ns", h.fsleep_busy_max.count_ns()},
               {"admin_submit_ns", h.admin_submit.count_ns()},
               {"irq_indirect_ns", h.irq_indirect.count_ns()},
               {"timer_expiry", choice_name(kTimerExpiryNames, h.timer_expiry)},
               {"timer_slack", choice_name(kTimerSlackNames, h.timer_slack)},
               {"cqe_cost", choice_name(kCqeCostNames, h.cqe_cost)},
               {"cqe_work_ns", h.cqe_work.count_ns()},
               {"cqe_cold_ns", h.cqe_cold.count_ns()},
               {"task_work_add_ns", h.task_work_add.count_ns()},
               {"switch_out_ns", h.switch_out.count_ns()},
               {"idle_entry_ns", h.idle_entry.count_ns()},
               {"idle_exit_ns", h.idle_exit.count_ns()}};
  // The delivery mechanisms appear only when switched on, so results of profiles
  // without them stay as they were.
  if (h.platform.active()) {
    const PlatformSpec& p = h.platform;
    j["host"]["platform"] = {{"sockets", p.sockets},
                             {"drives_per_root_complex", p.drives_per_root_complex},
                             {"interrupt_remapping", choice_name(kInterruptRemappingNames, p.remapping)},
                             {"drain_ns", p.drain.count_ns()},
                             {"message_ns", p.message.count_ns()},
                             {"post_ns", p.post.count_ns()},
                             {"socket_message_ns", p.socket_message.count_ns()},
                             {"latency_ns", p.latency.count_ns()}};
    j["host"]["posted_demux_ns"] = h.posted_demux.count_ns();
  }
  if (h.softirq_limits.active())
    j["host"]["softirq_limits"] = {{"max_restart", h.softirq_limits.max_restart},
                                   {"max_time_ns", h.softirq_limits.max_time.count_ns()}};
  if (h.irq_poll.budget_per_cpu > 0 || h.irq_poll.rearm_from_poll_end)
    j["host"]["irq_poll"] = {{"budget_per_cpu", h.irq_poll.budget_per_cpu},
                             {"rearm_from_poll_end", h.irq_poll.rearm_from_poll_end}};
  if (h.completion_ipi.active())
    j["host"]["completion_ipi"] = {{"cores_per_llc", h.completion_ipi.cores_per_llc},
                                   {"send_ns", h.completion_ipi.send.count_ns()},
                                   {"latency_ns", h.completion_ipi.latency.count_ns()},
                                   {"remote_per_cqe_ns", h.completion_ipi.remote_per_cqe.count_ns()}};
  if (h.irq_effective_cpu == IrqEffectiveCpu::fewest_vectors) j["host"]["irq_effective_cpu"] = "fewest_vectors";
  json drives = json::array();
  const PlatformPlacement placement(sc);
  for (const auto& d : sc.drives) {
    drives.push_back({{"name", d.name}, {"profile", device_to_json(d.profile)}});
    if (h.platform.active()) {  // where it sits, as placed (given or by the platform's default)
      const PlatformPlacement::Drive& at = placement.drive(static_cast<uint32_t>(drives.size() - 1));
      drives.back()["socket"] = at.socket;
      drives.back()["root_complex"] = at.root_complex;
    }
  }
  j["drives"] = drives;
  json params = json::object();
  for (const auto& [k, v] : sc.policy.params) params[k] = v;
  j["policy"] = {{"name", sc.policy.name}, {"params", params}};
  json jobs = json::array();
  for (const auto& js : sc.jobs) {
    json cpus = json::array();
    for (auto c : js.cpus_allowed) cpus.push_back(c);
    json jj = {{"name", js.name},
               {"ioengine", js.ioengine == IoEngine::libaio ? "libaio" : "io_uring"},
               {"hipri", js.hipri},
               {"rw", rw_name(js.rw)},
               {"rwmixread", js.rwmixread},
               {"bs", js.bs},
               {"iodepth", js.iodepth},
               {"iodepth_batch_submit", js.iodepth_batch_submit},
               {"iodepth_batch_complete_min", js.iodepth_batch_complete_min},
               {"iodepth_batch_complete_max", js.iodepth_batch_complete_max},
               {"numjobs", js.numjobs},
               {"drives", js.drives},
               {"rate_iops", js.rate_iops},
               {"rate_process", js.rate_process == RateProcess::poisson ? "poisson" : "linear"}};
    if (!cpus.empty()) jj["cpus_allowed"] = cpus;
    if (js.completion) jj["completion"] = choice_name(kCompletionPostingNames, *js.completion);
    if (js.submit_and_wait) jj["submit_and_wait"] = true;
    jobs.push_back(jj);
  }
  j["jobs"] = jobs;
  return j;
}

}  // namespace nvmesim
