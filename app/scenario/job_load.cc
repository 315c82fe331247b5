#include "app/scenario/job_load.h"

#include <algorithm>
#include <sstream>

#include "app/input/checked_number.h"
#include "app/input/input_limits.h"
#include "app/input/json_text.h"
#include "app/profile/profile_fields.h"
#include "policies/registry.h"

namespace nvmesim {
using nlohmann::json;

namespace {

constexpr double kMinRateIops = 1e-3;         // rate_iops: one I/O in 1000 s
constexpr std::size_t kMaxCpuList = 65536;    // cpus_allowed entries (clone i takes the i-th)

std::optional<std::vector<uint32_t>> parse_cpu_list(const std::string& s) {
  std::vector<uint32_t> out;
  std::stringstream ss(s);
  std::string part;
  // Each number range-checked before conversion ("4294967296" must not become CPU 0).
  auto cpu = [](const std::string& t) { return in_range(parse_integral(t), 0, UINT32_MAX); };
  while (std::getline(ss, part, ',')) {
    auto dash = part.find('-');
    if (dash == std::string::npos) {
      auto c = cpu(part);
      if (!c) return std::nullopt;
      out.push_back(static_cast<uint32_t>(*c));
    } else {
      auto a = cpu(part.substr(0, dash)), b = cpu(part.substr(dash + 1));
      if (!a || !b || *b < *a || *b - *a > 65536) return std::nullopt;
      for (int64_t c = *a; c <= *b; ++c) out.push_back(static_cast<uint32_t>(c));
    }
    if (out.size() > kMaxCpuList) return std::nullopt;  // "0-65535,0-65535,..." would not end
  }
  if (out.empty()) return std::nullopt;
  return out;
}

JobSpec read_job(const json& j, const std::string& path, const Scenario& sc, std::optional<InputError>& err) {
  JobSpec js;
  JsonReader r(j, path, err);
  js.name = r.string("name", "job");
  js.ioengine = r.choice("ioengine", "io_uring", {"io_uring", "libaio"}) == "libaio" ? IoEngine::libaio : IoEngine::io_uring;
  js.hipri = r.boolean("hipri", false);
  std::string rw = r.choice("rw", "randread", {"randread", "randwrite", "read", "write", "randrw", "rw", "readwrite"});
  js.rw = rw == "randread" ? RwMode::randread : rw == "randwrite" ? RwMode::randwrite
        : rw == "read" ? RwMode::read : rw == "write" ? RwMode::write
        : rw == "randrw" ? RwMode::randrw : RwMode::rw;
  js.rwmixread = r.u32("rwmixread", 50, 0, 100);
  js.bs = r.size_bytes("bs", 4096, 512, 128u << 20);
  if (r.ok() && js.bs % 512 != 0) r.fail("bs", "must be a multiple of 512, got " + std::to_string(js.bs));
  js.iodepth = r.u32("iodepth", 1, 1, 65535);
  js.iodepth_batch_submit = r.u32("iodepth_batch_submit", 1, 1, 65535);
  js.iodepth_batch_complete_min = r.u32("iodepth_batch_complete_min", 1, 0, 65535);
  js.iodepth_batch_complete_max = r.u32("iodepth_batch_complete_max", 0, 0, 65535);
  js.numjobs = r.u32("numjobs", 1, 1, 4096);
  js.rate_iops = r.number("rate_iops", 0, 0, 1e9);
  if (r.ok() && js.rate_iops > 0 && js.rate_iops < kMinRateIops)
    r.fail("rate_iops", "must be 0 (closed loop) or >= 0.001, got " + json_excerpt(r.at("rate_iops")));
  js.rate_process = r.choice("rate_process", "linear", {"linear", "poisson"}) == "poisson" ? RateProcess::poisson : RateProcess::linear;
  if (r.has("completion")) js.completion = read_choice(r, "completion", CompletionPosting{}, kCompletionPostingNames);
  js.submit_and_wait = r.boolean("submit_and_wait", false);
  if (r.ok() && js.submit_and_wait && js.ioengine != IoEngine::io_uring)
    r.fail("submit_and_wait", "only io_uring submits and waits in one call (io_uring_enter); libaio's io_submit and io_getevents are two, so a libaio job leaves it out or sets it to false");
  if (!r.ok()) return js;
  if (js.iodepth_batch_submit > js.iodepth)
    r.fail("iodepth_batch_submit", "must be <= iodepth (" + std::to_string(js.iodepth) + "), got " + std::to_string(js.iodepth_batch_submit));
  else if (js.iodepth_batch_complete_min > js.iodepth)
    r.fail("iodepth_batch_complete_min", "must be <= iodepth (" + std::to_string(js.iodepth) + "), got " + std::to_string(js.iodepth_batch_complete_min));
  else if (js.iodepth_batch_complete_max && js.iodepth_batch_complete_max < js.iodepth_batch_complete_min)
    r.fail("iodepth_batch_complete_max", "must be >= iodepth_batch_complete_min (" + std::to_string(js.iodepth_batch_complete_min) + ")");
  if (r.has("cpus_allowed")) {
    const json& c = r.at("cpus_allowed");
    std::optional<std::vector<uint32_t>> cpus;
    if (c.is_string()) cpus = parse_cpu_list(c.get<std::string>());
    else if (c.is_array()) {
      // Each one range-checked before conversion: 4294967296 must not become CPU 0.
      cpus.emplace();
      for (const json& x : c) {
        auto cpu = in_range(json_integral(x), 0, UINT32_MAX);
        if (!cpu || cpus->size() >= kMaxCpuList) {
          cpus.reset();
          break;
        }
        cpus->push_back(static_cast<uint32_t>(*cpu));
      }
    }
    if (!cpus || cpus->empty()) r.fail("cpus_allowed", "must be a CPU list like \"0-3,8\" or [0, 1], got " + json_excerpt(c));
    else {
      for (uint32_t cpu : *cpus)
        if (cpu >= sc.host.cores) {
          r.fail("cpus_allowed", "CPU " + std::to_string(cpu) + " does not exist: the host has " + std::to_string(sc.host.cores) + " cores");
          break;
        }
      js.cpus_allowed = *cpus;
    }
  }
  if (r.has("drives")) {
    const json& d = r.at("drives");
    if (!d.is_array() || d.empty()) r.fail("drives", "must be a non-empty array of drive indexes or names");
    else {
      for (std::size_t i = 0; i < d.size() && r.ok(); ++i) {
        std::optional<uint32_t> idx;
        if (auto k = in_range(json_integral(d[i]), 0, static_cast<int64_t>(sc.drives.size()) - 1)) idx = static_cast<uint32_t>(*k);
        if (d[i].is_string())
          for (uint32_t k = 0; k < sc.drives.size(); ++k)
            if (sc.drives[k].name == d[i].get<std::string>()) idx = k;
        const std::string at = path + "/drives/" + std::to_string(i);
        const auto same = idx ? std::find(js.drives.begin(), js.drives.end(), *idx) : js.drives.end();
        if (!idx) err = InputError{at, "no such drive: " + json_excerpt(d[i])};
        // Twice would submit to the same queues twice over and count the job's interrupts
        // and I/Os once per listing.
        else if (same != js.drives.end())
          err = InputError{at, "drive " + sc.drives[*idx].name + " is listed twice (also at " + path + "/drives/" +
                                   std::to_string(same - js.drives.begin()) + "): a job submits to each of its drives once"};
        else js.drives.push_back(*idx);
      }
    }
  } else {
    for (uint32_t k = 0; k < sc.drives.size(); ++k) js.drives.push_back(k);
  }
  r.reject_unknown({"cpus_allowed", "drives", "comment"});
  return js;
}

}  // namespace

// The job sections; each needs the host and the drives read before it.
std::optional<InputError> read_jobs(JsonReader& r, Scenario& sc, std::optional<InputError>& err) {
  if (!r.has("jobs") || !r.at("jobs").is_array() || r.at("jobs").empty())
    return InputError{"/jobs", "must be a non-empty array of jobs"};
  if (r.at("jobs").size() > limits::kMaxJobs)
    return InputError{"/jobs", "at most " + std::to_string(limits::kMaxJobs) + " jobs, got " + std::to_string(r.at("jobs").size())};
  const json& jobs = r.at("jobs");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    JobSpec js = read_job(jobs[i], "/jobs/" + std::to_string(i), sc, err);
    if (err) return err;
    sc.jobs.push_back(std::move(js));
  }
  return std::nullopt;
}


// Cross-checks that need the whole scenario: a polling policy's jobs poll with io_uring.
std::optional<InputError> check_jobs_fit_policy(const Scenario& sc) {
  const policy::PolicyInfo* info = policy::find_policy(sc.policy.name);
  for (std::size_t i = 0; i < sc.jobs.size(); ++i) {
    const JobSpec& js = sc.jobs[i];
    std::string jp = "/jobs/" + std::to_string(i);
    if (info->app_polls && js.ioengine != IoEngine::io_uring)
      return InputError{jp + "/ioengine", "policy \"" + sc.policy.name + "\" polls queues, which needs io_uring (hipri); got libaio"};
    if (js.hipri && !info->app_polls)
      return InputError{jp + "/hipri", "hipri needs polled queues: use policy \"poll\""};
  }
  return std::nullopt;
}

// A job deeper than the queues it submits to: the queue holds depth - 1 commands (one
// entry stays empty so that full and empty differ), so the job runs with that many in
// flight, not its iodepth -- legal, as on Linux, but rarely what was meant. An iodepth
// equal to the queue's size (QD1024 on 1024 entries, as the published runs) is the usual
// setup and one short: not worth a warning.
std::vector<InputError> jobs_deeper_than_queues(const Scenario& sc) {
  std::vector<InputError> warnings;
  for (std::size_t j = 0; j < sc.jobs.size(); ++j) {
    const JobSpec& js = sc.jobs[j];
    for (uint32_t d : js.drives) {
      if (d >= sc.drives.size()) continue;
      const uint32_t depth = std::min(sc.queue_depth, sc.drives[d].profile.max_queue_depth);
      const uint32_t room = depth > 0 ? depth - 1 : 0;
      if (js.iodepth <= depth) continue;
      warnings.push_back(InputError{
          "/jobs/" + std::to_string(j) + "/iodepth",
          std::to_string(js.iodepth) + " is more than a queue of drive " + sc.drives[d].name + " holds (" +
              std::to_string(room) + " commands: queue_depth " + std::to_string(sc.queue_depth) +
              ", the drive's max_queue_depth " + std::to_string(sc.drives[d].profile.max_queue_depth) +
              ", less one): the job keeps at most " + std::to_string(room) + " in flight there, " +
              std::to_string(js.iodepth - room) + " fewer"});
      break;  // one warning per job
    }
  }
  return warnings;
}

}  // namespace nvmesim
