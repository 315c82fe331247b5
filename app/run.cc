#include "app/run.h"

#include <chrono>
#include <memory>
#include <stdexcept>
#include <cmath>

#include "app/output_file.h"
#include "app/results_json.h"
#include "models/system.h"
#include "sim/histogram.h"

namespace nvmesim {
using nlohmann::json;

namespace {

using results::Interrupts;
using results::counters_json;
using results::frac;
using results::metrics_json;
using results::mode_change_json;

}  // namespace

json run_scenario(const LoadedScenario& loaded, const RunOptions& opts, RunInfo* info) {
  auto t0 = std::chrono::steady_clock::now();
  System sys(loaded.scenario);
  // Both traces cover the same window: by default the first 10 ms of the measured window.
  const Time end = Time::zero() + loaded.scenario.warmup + loaded.scenario.duration;
  const Time from = opts.trace_from_us >= 0 ? Time::zero() + Duration::us(opts.trace_from_us)
                                            : Time::zero() + loaded.scenario.warmup;
  const Time to = min(opts.trace_to_us >= 0 ? Time::zero() + Duration::us(opts.trace_to_us) : from + Duration::ms(10), end);
  std::unique_ptr<sim::TraceRecorder> trace;
  if (opts.trace_out || !opts.trace_path.empty()) {
    trace = std::make_unique<sim::TraceRecorder>(from, to, opts.trace_max_events);
    sys.enable_trace(trace.get());
  }
  std::unique_ptr<CommandTraceLog> commands;
  if (opts.command_trace_out || !opts.command_trace_path.empty()) {
    commands = std::make_unique<CommandTraceLog>(from, to, opts.command_trace_max_records);
    sys.enable_command_trace(commands.get());
  }
  sys.run(opts.progress);
  // Written to the caller's stream, or to the path with every write checked.
  auto write_to = [](std::ostream* given, const std::string& path, auto&& write) {
    if (given) {
      write(*given);
      return;
    }
    OutputFile f;
    std::string e = f.open(path);
    if (e.empty()) {
      write(f.stream());
      if (auto ce = f.close()) e = *ce;
    }
    if (!e.empty()) throw std::runtime_error(e);
  };
  if (trace) {
    write_to(opts.trace_out, opts.trace_path, [&](std::ostream& os) { trace->write(os); });
    if (info) info->trace_dropped = trace->dropped();
  }
  if (commands) {
    write_to(opts.command_trace_out, opts.command_trace_path, [&](std::ostream& os) { commands->write(os); });
    if (info) info->trace_dropped += commands->dropped();
  }
  const Scenario& sc = loaded.scenario;
  const Duration window = sys.window();
  const auto& queues = sys.queues();
  const auto& jobs = sys.jobs();

  // Per queue: latency and volume from the jobs that used it.
  std::vector<sim::Histogram> q_lat(queues.size());
  std::vector<uint64_t> q_ios(queues.size(), 0), q_bytes(queues.size(), 0);
  json jobs_json = json::array();
  sim::Histogram all_lat;
  uint64_t all_ios = 0, all_bytes = 0;
  for (const Job& j : jobs) {
    sim::Histogram jl;
    uint64_t ios = 0, bytes = 0;
    Interrupts irq;
    for (std::size_t s = 0; s < j.queues.size(); ++s) {
      uint32_t gq = j.queues[s];
      jl.merge(j.latency[s]);
      q_lat[gq].merge(j.latency[s]);
      q_ios[gq] += j.ios[s];
      q_bytes[gq] += j.bytes[s];
      ios += j.ios[s];
      bytes += j.bytes[s];
      irq.add(sys.queue_counters(gq), sys.queue_lazy_masked(gq));
    }
    all_lat.merge(jl);
    all_ios += ios;
    all_bytes += bytes;
    json m = metrics_json(ios, bytes, jl, irq, window);
    m["name"] = j.spec->name;
    m["job"] = j.spec_index;
    m["clone"] = j.clone;
    m["core"] = j.core;
    json qs = json::array();
    for (uint32_t gq : j.queues) qs.push_back(gq);
    m["queues"] = qs;
    jobs_json.push_back(m);
  }

  json queues_json = json::array();
  std::vector<Interrupts> drive_irq(sc.drives.size());
  std::vector<sim::Histogram> d_lat(sc.drives.size());
  std::vector<uint64_t> d_ios(sc.drives.size(), 0), d_bytes(sc.drives.size(), 0);
  Interrupts all_irq;
  for (std::size_t gq = 0; gq < queues.size(); ++gq) {
    const HostQueue& q = *queues[gq];
    policy::QueueCounters c = sys.queue_counters(static_cast<uint32_t>(gq));
    Interrupts irq;
    irq.add(c, sys.queue_lazy_masked(static_cast<uint32_t>(gq)));
    drive_irq[q.drive].add(c, sys.queue_lazy_masked(static_cast<uint32_t>(gq)));
    all_irq.add(c, sys.queue_lazy_masked(static_cast<uint32_t>(gq)));
    d_lat[q.drive].merge(q_lat[gq]);
    d_ios[q.drive] += q_ios[gq];
    d_bytes[q.drive] += q_bytes[gq];
    if (q.submitted == 0 && c.completions == 0 && irq.total() == 0) continue;  // unused queue
    json m = metrics_json(q_ios[gq], q_bytes[gq], q_lat[gq], irq, window);
    m["queue"] = gq;
    m["drive"] = q.drive;
    m["qid"] = q.qid + 1;  // NVMe numbering: queue 0 is the admin queue
    m["core"] = q.core;
    m["polled"] = q.polled;
    m["policy"] = std::visit([](const auto& p) { return std::string(p.kName); }, q.policy);
    m["final_mode"] = std::visit([](const auto& p) { return std::string(p.mode()); }, q.policy);
    m["counters"] = counters_json(c);
    json tl = json::array();
    for (const auto& e : q.timeline)
      tl.push_back(mode_change_json(e.time.ns(), e.from, e.to, e.reason));
    m["mode_timeline"] = tl;
    m["timeline_dropped"] = q.timeline_dropped;
    queues_json.push_back(m);
  }

  json drives_json = json::array();
  double secs = static_cast<double>(window.count_ns()) / 1e9;
  double max_drive_util = 0;
  for (std::size_t d = 0; d < sc.drives.size(); ++d) {
    const DeviceProfile& p = sc.drives[d].profile;
    DeviceStats s = sys.device_stats(static_cast<uint32_t>(d));
    json m = metrics_json(d_ios[d], d_bytes[d], d_lat[d], drive_irq[d], window);
    m["name"] = sc.drives[d].name;
    double fe = p.iops_max > 0 ? static_cast<double>(s.commands) / (p.iops_max * secs) : 0.0;
    double units = static_cast<double>(s.unit_busy.count_ns()) / (static_cast<double>(p.units) * static_cast<double>(window.count_ns()));
    double link = static_cast<double>(s.link_busy.count_ns()) / (2.0 * static_cast<double>(window.count_ns()));
    max_drive_util = std::max({max_drive_util, fe, units});
    m["device"] = {{"commands", s.commands},
                   {"iops_ceiling_utilization", frac(fe)},
                   {"unit_utilization", frac(units)},
                   {"link_utilization", frac(link)},
                   {"mean_unit_wait_ns", s.waits ? static_cast<double>(s.queue_wait.count_ns()) / static_cast<double>(s.waits) : 0.0},
                   {"msix_messages", s.msix_messages},
                   {"msix_held_by_mask", s.msix_held},
                   {"postings_coalesced", s.coalesced},
                   {"admin_commands", s.admin_commands}};
    // Drive-level policy state (coalesce_adaptive); empty for per-queue policies.
    json tl = json::array();
    for (const auto& e : sys.drive_timeline(static_cast<uint32_t>(d)))
      tl.push_back(mode_change_json(e.time.ns(), e.from, e.to, e.reason));
    m["mode_timeline"] = tl;
    m["final_mode"] = sys.drive_mode(static_cast<uint32_t>(d));
    drives_json.push_back(m);
  }

  json cores_json = json::array();
  double max_core_busy = 0;
  for (uint32_t c = 0; c < sys.core_count(); ++c) {
    CoreTimes t = sys.core_times(c);
    auto w = static_cast<double>(window.count_ns());
    int64_t busy = 0;
    for (auto b : t.busy) busy += b.count_ns();
    int64_t idle = window.count_ns() - busy;
    // Fractions from integer ns: they sum to 1 up to the 1e-9 rounding of each.
    json f = {{"hardirq", frac(static_cast<double>(t.busy[0].count_ns()) / w)},
              {"softirq", frac(static_cast<double>(t.busy[1].count_ns()) / w)},
              {"irq_thread", frac(static_cast<double>(t.busy[2].count_ns()) / w)},
              {"app", frac(static_cast<double>(t.busy[3].count_ns()) / w)},
              {"idle", frac(static_cast<double>(idle) / w)}};
    json ns = {{"hardirq", t.busy[0].count_ns()}, {"softirq", t.busy[1].count_ns()},
               {"irq_thread", t.busy[2].count_ns()}, {"app", t.busy[3].count_ns()}, {"idle", idle}};
    max_core_busy = std::max(max_core_busy, static_cast<double>(busy) / w);
    cores_json.push_back({{"core", c}, {"fractions", f}, {"time_ns", ns}});
  }

  json out;
  out["format"] = results::kFormat;
  out["seed"] = sc.seed;
  out["scenario"] = loaded.resolved;
  out["window_ns"] = window.count_ns();
  json agg = metrics_json(all_ios, all_bytes, all_lat, all_irq, window);
  agg["latency_cdf"] = results::latency_cdf_json(all_lat);
  out["aggregate"] = agg;
  // Which resource is nearest its limit: the busiest core, or the busiest drive stage.
  out["limits"] = {{"busiest_core_utilization", frac(max_core_busy)},
                   {"busiest_drive_utilization", frac(max_drive_util)},
                   {"bound_by", max_core_busy >= 0.97 && max_core_busy > max_drive_util ? "cpu"
                                : max_drive_util >= 0.97 ? "drive" : "latency"}};
  out["drives"] = drives_json;
  out["queues"] = queues_json;
  out["jobs"] = jobs_json;
  out["cores"] = cores_json;

  if (info) {
    info->wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    info->events = sys.events();
    info->ios = all_ios;
  }
  return out;
}

std::string dump_results(const json& results) { return results.dump(2) + "\n"; }

}  // namespace nvmesim
