#include "app/run.h"

#include <chrono>
#include <memory>
#include <stdexcept>
#include <cmath>

#include "app/output_file.h"
#include "app/mode_share.h"
#include "app/replay_report.h"
#include "app/run_record.h"
#include "models/system.h"
#include "policies/registry.h"
#include "vocab/histogram.h"

namespace nvmesim {
using nlohmann::json;

namespace {

using results::Figures;

results::TimelineEntry entry_of(const ModeChange& e) { return {e.time.ns(), e.from, e.to, e.reason}; }

// The job clones' records and the aggregate's volume and latency; per queue, the latency
// and volume of the jobs that used it (into q_fig).
void add_jobs(const System& sys, results::RunRecord& r, std::vector<Figures>& q_fig) {
  for (const Job& j : sys.jobs()) {
    results::JobRecord jr;
    for (std::size_t s = 0; s < j.queues.size(); ++s) {
      const uint32_t gq = j.queues[s];
      jr.figures.latency.merge(j.latency[s]);
      q_fig[gq].latency.merge(j.latency[s]);
      q_fig[gq].ios += j.ios[s];
      q_fig[gq].bytes += j.bytes[s];
      jr.figures.ios += j.ios[s];
      jr.figures.bytes += j.bytes[s];
      jr.figures.irq.add(sys.queue_counters(gq), sys.queue_lazy_masked(gq));
    }
    r.aggregate.latency.merge(jr.figures.latency);
    r.aggregate.ios += jr.figures.ios;
    r.aggregate.bytes += jr.figures.bytes;
    jr.name = j.spec->name;
    jr.job = j.spec_index;
    jr.clone = j.clone;
    jr.core = j.core;
    jr.queues = j.queues;
    r.jobs.push_back(std::move(jr));
  }
}

// The queues' records (used queues only); per drive, the figures of its queues (d_fig).
void add_queues(const System& sys, results::RunRecord& r, std::vector<Figures>& q_fig, std::vector<Figures>& d_fig) {
  const auto& queues = sys.queues();
  for (std::size_t gq = 0; gq < queues.size(); ++gq) {
    const HostQueue& q = *queues[gq];
    const policy::QueueCounters c = sys.queue_counters(static_cast<uint32_t>(gq));
    const uint64_t lazy = sys.queue_lazy_masked(static_cast<uint32_t>(gq));
    q_fig[gq].irq.add(c, lazy);
    d_fig[q.drive].irq.add(c, lazy);
    r.aggregate.irq.add(c, lazy);
    d_fig[q.drive].latency.merge(q_fig[gq].latency);
    d_fig[q.drive].ios += q_fig[gq].ios;
    d_fig[q.drive].bytes += q_fig[gq].bytes;
    if (q.submitted == 0 && c.completions == 0 && q_fig[gq].irq.total() == 0) continue;  // unused queue
    results::QueueRecord qr;
    qr.figures = std::move(q_fig[gq]);
    qr.queue = static_cast<uint32_t>(gq);
    qr.drive = q.drive;
    qr.qid = q.qid + 1;  // q.qid counts I/O queues from 0
    qr.core = q.core;
    qr.polled = q.polled;
    qr.policy = std::string(policy::policy_name(q.policy));
    qr.final_mode = std::visit([](const auto& p) { return std::string(p.mode()); }, q.policy);
    qr.counters = c;
    for (const auto& e : q.timeline) qr.timeline.push_back(entry_of(e));
    qr.timeline_dropped = q.timeline_dropped;
    r.queues.push_back(std::move(qr));
  }
}

// The drives' and cores' records, and which of them was nearest its limit.
void add_drives_and_cores(const System& sys, const Scenario& sc, results::RunRecord& r, std::vector<Figures>& d_fig) {
  const Duration window = sys.window();
  const double secs = static_cast<double>(window.count_ns()) / 1e9;
  const auto w = static_cast<double>(window.count_ns());
  results::Limits limits;
  for (std::size_t d = 0; d < sc.drives.size(); ++d) {
    const DeviceProfile& p = sc.drives[d].profile;
    const DeviceStats s = sys.device_stats(static_cast<uint32_t>(d));
    results::DriveRecord dr;
    dr.figures = std::move(d_fig[d]);
    dr.name = sc.drives[d].name;
    dr.commands = s.commands;
    results::DeviceModelFigures m;
    m.iops_ceiling_utilization = p.iops_max > 0 ? static_cast<double>(s.commands) / (p.iops_max * secs) : 0.0;
    m.unit_utilization = static_cast<double>(s.unit_busy.count_ns()) / (static_cast<double>(p.units) * w);
    m.link_utilization = static_cast<double>(s.link_busy.count_ns()) / (2.0 * w);
    m.mean_unit_wait_ns = s.waits ? static_cast<double>(s.queue_wait.count_ns()) / static_cast<double>(s.waits) : 0.0;
    m.msix_messages = s.msix_messages;
    m.msix_held_by_mask = s.msix_held;
    m.postings_coalesced = s.coalesced;
    m.admin_commands = s.admin_commands;
    m.ordered_msix_path = sc.host.msix_path.active() && sc.host.msix_path.posted_credits > 0;
    m.msix_merged = s.msix_merged;
    m.cqe_writes_stalled = s.cqe_writes_stalled;
    limits.busiest_drive_utilization =
        std::max({limits.busiest_drive_utilization, m.iops_ceiling_utilization, m.unit_utilization});
    dr.model = m;
    // Drive-level policy state (coalesce_adaptive); empty for per-queue policies.
    for (const auto& e : sys.drive_timeline(static_cast<uint32_t>(d))) dr.timeline.push_back(entry_of(e));
    dr.final_mode = sys.drive_mode(static_cast<uint32_t>(d));
    dr.decisions = sys.drive_decisions(static_cast<uint32_t>(d));
    r.drives.push_back(std::move(dr));
  }

  for (uint32_t c = 0; c < sys.core_count(); ++c) {
    const CoreTimes t = sys.core_times(c);
    results::CoreRecord cr{c, t.busy[0].count_ns(), t.busy[1].count_ns(), t.busy[2].count_ns(), t.busy[3].count_ns()};
    limits.busiest_core_utilization =
        std::max(limits.busiest_core_utilization, static_cast<double>(cr.busy_ns()) / w);
    r.cores.push_back(cr);
  }
  r.limits = limits;
}

// The policies that decide their mode at run time: the 2026 proposals, per queue (they
// need a dedicated vector) or per drive. The baselines have one mode throughout.
bool adaptive(const policy::PolicyInfo& p) { return p.per_drive() || p.eligibility == policy::Eligibility::dedicated_vector; }

// Per adaptive queue or drive, its share of the window in each mode, and a warning for
// those that never changed mode inside the window (the window measured one mode).
void add_mode_shares(const Scenario& sc, results::RunRecord& r) {
  const int64_t from = sc.warmup.count_ns();
  const int64_t to = from + sc.duration.count_ns();
  uint32_t idle_queues = 0;
  std::string first_idle;
  for (results::QueueRecord& q : r.queues) {
    const policy::PolicyInfo* p = policy::find_policy(q.policy);
    if (!p || !adaptive(*p) || p->per_drive()) continue;
    if (q.timeline_dropped > 0) continue;  // the kept timeline stops early: no shares
    q.mode_share = results::mode_shares(q.timeline, q.final_mode, from, to);
    // No change inside: one mode has the whole window.
    if (!results::changed_within(q.timeline, from, to) && !q.mode_share.empty() && idle_queues++ == 0)
      first_idle = "queue " + std::to_string(q.queue) + ", " + q.mode_share.begin()->first + " throughout";
  }
  if (idle_queues > 0)
    r.warnings.push_back(sc.policy.name + " made no mode change inside the measured window on " +
                         std::to_string(idle_queues) + " queue(s) (first: " + first_idle +
                         "): the window measured one mode of each, not the policy's switching");
  const policy::PolicyInfo* p = policy::find_policy(sc.policy.name);
  if (!p || !p->per_drive()) return;
  for (results::DriveRecord& d : r.drives) {
    d.mode_share = results::mode_shares(d.timeline, d.final_mode, from, to);
    // A drive monitor that has decided (even to keep its mode) has acted: the window
    // measures its decisions. One that has not is measured as its starting mode.
    if (d.decisions == 0 && !d.mode_share.empty())
      r.warnings.push_back(sc.policy.name + " made no decision by the end of the measured window on drive " +
                           d.name + " (" + d.mode_share.begin()->first +
                           " throughout; its first comes at the end of its first cycle): the window measured its "
                           "starting mode, not the policy");
  }
}

// What the simulated run measured, as the results' typed record.
results::RunRecord record_of(const System& sys, const LoadedScenario& loaded) {
  const Scenario& sc = loaded.scenario;
  results::RunRecord r;
  r.seed = sc.seed;
  r.scenario = loaded.resolved;
  r.window = sys.window();
  std::vector<Figures> q_fig(sys.queues().size()), d_fig(sc.drives.size());
  add_jobs(sys, r, q_fig);
  add_queues(sys, r, q_fig, d_fig);
  add_drives_and_cores(sys, sc, r, d_fig);
  if (sc.warmup_given)
    r.warnings.push_back("warmup_us lengthened from " + std::to_string(sc.warmup_given->count_ns() / 1000) + " to " +
                         std::to_string(sc.warmup.count_ns() / 1000) + ": " + sc.policy.name +
                         "'s first decision comes " +
                         std::to_string((sc.warmup - *sc.warmup_given).count_ns() / 1000) +
                         " us into the run (warmup_covers_policy false keeps the warm-up as given)");
  add_mode_shares(sc, r);
  return r;
}

}  // namespace

json run_scenario(const LoadedScenario& loaded, const RunOptions& opts, RunInfo* info) {
  auto t0 = std::chrono::steady_clock::now();
  Scenario sc = loaded.scenario;
  if (opts.replay) {
    // The run covers the whole trace (its measured window may grow to do so).
    Time last = Time::zero();
    for (const ReplayCommand& c : opts.replay->commands) last = max(last, c.seen != Time::never() ? c.seen : c.submit);
    const Time end_needed = last + Duration::ms(1);
    if (Time::zero() + sc.warmup + sc.duration < end_needed) sc.duration = end_needed - (Time::zero() + sc.warmup);
  }
  System sys(sc, opts.replay);
  // Both traces end by default 10 ms into the measured window. The Perfetto trace starts
  // with the measured window; the command trace at the run's start, so that a replay of it
  // has every command the recorded ones depended on. --trace-window sets both.
  const Time end = Time::zero() + sc.warmup + sc.duration;
  const Time from = opts.trace_from_us >= 0 ? Time::zero() + Duration::us(opts.trace_from_us)
                                            : Time::zero() + sc.warmup;
  const Time to = min(opts.trace_to_us >= 0 ? Time::zero() + Duration::us(opts.trace_to_us) : from + Duration::ms(10), end);
  const Time commands_from = opts.trace_from_us >= 0 ? from : Time::zero();
  std::unique_ptr<sim::TraceRecorder> trace;
  if (opts.trace_out || !opts.trace_path.empty()) {
    trace = std::make_unique<sim::TraceRecorder>(from, to, opts.trace_max_events);
    sys.enable_trace(trace.get());
  }
  std::unique_ptr<CommandTraceLog> commands;
  if (opts.command_trace_out || !opts.command_trace_path.empty()) {
    commands = std::make_unique<CommandTraceLog>(commands_from, to, opts.command_trace_max_records);
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
  results::RunRecord record = record_of(sys, loaded);
  if (info) info->ios = record.aggregate.ios;
  json out = results::to_json(record);
  if (opts.replay) {
    out["replay"] = replay_summary(*opts.replay, sys);
    if (opts.replay_diff_out) write_replay_diff(*opts.replay_diff_out, *opts.replay, sys);
  }

  if (info) {
    info->wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    info->events = sys.events();
  }
  return out;
}

std::string dump_results(const json& results) { return results.dump(2) + "\n"; }

}  // namespace nvmesim
