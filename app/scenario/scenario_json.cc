#include "app/scenario/scenario_json.h"

#include "app/profile/device_profile_json.h"
#include "app/profile/host_profile_fields.h"
#include "models/host/platform_placement.h"

namespace nvmesim {
using nlohmann::json;

namespace {

json engine_to_json(const EngineCosts& e) {
  json j = json::object();
  write_profile_fields(j, e, std::span<const EngineField>(kEngineFields));
  return j;
}


}  // namespace

// One line per scenario field, in the schema's order, so a field added to the schema is
// added here beside its neighbours; the profiles' table fields come from their tables.
json scenario_to_json(const Scenario& sc) {
  json j;
  j["name"] = sc.name;
  j["seed"] = sc.seed;
  j["duration_us"] = sc.duration.count_ns() / 1000;
  j["warmup_us"] = sc.warmup.count_ns() / 1000;
  if (!sc.warmup_covers_policy) j["warmup_covers_policy"] = false;
  if (!sc.warmup_covers_drive_state) j["warmup_covers_drive_state"] = false;
  j["io_queues"] = sc.io_queues;
  j["queue_depth"] = sc.queue_depth;
  const HostProfile& h = sc.host;
  j["host"] = {{"name", h.name},
               {"cores", h.cores},
               {"libaio", engine_to_json(h.libaio)},
               {"io_uring", engine_to_json(h.io_uring)}};
  write_profile_fields(j["host"], h, std::span<const HostField>(kHostFields));
  // The delivery mechanisms appear only when switched on, so results of profiles
  // without them stay as they were.
  if (h.platform.active()) {
    write_profile_fields(j["host"]["platform"], h.platform, std::span<const PlatformField>(kPlatformFields));
  } else {
    j["host"].erase("posted_demux_ns");  // the posted-MSI cost, with a platform only
  }
  if (h.softirq_limits.active())
    write_profile_fields(j["host"]["softirq_limits"], h.softirq_limits,
                         std::span<const SoftirqLimitsField>(kSoftirqLimitsFields));
  if (h.irq_poll.budget_per_cpu > 0 || h.irq_poll.rearm_from_poll_end)
    write_profile_fields(j["host"]["irq_poll"], h.irq_poll, std::span<const IrqPollField>(kIrqPollFields));
  if (h.completion_ipi.active())
    write_profile_fields(j["host"]["completion_ipi"], h.completion_ipi,
                         std::span<const CompletionIpiField>(kCompletionIpiFields));
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
