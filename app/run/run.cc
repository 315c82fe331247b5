#include "app/run/run.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <map>
#include <numeric>
#include <memory>
#include <stdexcept>
#include <cmath>

#include "app/results/mode_share.h"
#include "app/results/output_file.h"
#include "app/results/result_invariants.h"
#include "app/results/run_record.h"
#include "app/run/parallel_runs.h"
#include "app/run/replay_report.h"
#include "app/run/system_record.h"
#include "app/scenario/memory_estimate.h"
#include "models/system/partition.h"
#include "models/system/system.h"
#include "policies/registry.h"

namespace nvmesim {
using nlohmann::json;

namespace {

// Which drive, which core and which MSI-X path were nearest their limits.
results::Limits limits_of(const results::RunRecord& r, const Scenario& sc) {
  const auto w = static_cast<double>(r.window.count_ns());
  results::Limits limits;
  if (sc.host.platform.active()) {  // each unit's and socket's time is its drives' shares
    std::map<uint32_t, double> unit, socket;
    for (const results::DriveRecord& d : r.drives) {
      unit[d.model->remapping_unit] += d.model->remapping_busy_ns;
      socket[d.model->socket] += d.model->socket_busy_ns;
    }
    auto busiest = [w](const std::map<uint32_t, double>& m) {
      double b = 0;
      for (const auto& [k, v] : m) b = std::max(b, v / w);
      return b;
    };
    limits.busiest_remapping_unit_utilization = busiest(unit);
    limits.busiest_socket_interrupts_utilization = busiest(socket);
  }
  for (const results::DriveRecord& d : r.drives)
    limits.busiest_drive_utilization =
        std::max({limits.busiest_drive_utilization, d.model->iops_ceiling_utilization, d.model->unit_utilization});
  for (const results::CoreRecord& c : r.cores)
    limits.busiest_core_utilization = std::max(limits.busiest_core_utilization, static_cast<double>(c.busy_ns()) / w);
  return limits;
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
    if (d.timeline_dropped > 0) continue;  // the kept timeline stops early: no shares
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

// Queues' or drives' timelines capped by the memory limit: what was dropped is counted
// in timeline_dropped, and those records have no mode_share; the results say so once.
template <class Records>
void warn_capped_timelines(const Records& records, const char* what, std::vector<std::string>& warnings) {
  uint64_t dropped = 0, capped = 0;
  std::size_t kept = 0;
  for (const auto& x : records)
    if (x.timeline_dropped > 0) ++capped, dropped += x.timeline_dropped, kept = std::max(kept, x.timeline.size());
  if (capped == 0) return;
  warnings.push_back("the mode timelines of " + std::to_string(capped) + " " + what + "(s) were capped at " +
                     std::to_string(kept) + " entries each (--memory-limit sets how many fit): " +
                     std::to_string(dropped) + " later mode changes are counted in timeline_dropped, not kept, "
                     "and those " + what + "s have no mode_share");
}

// The run's record from its partitions' (`parts`, null: one System measured everything):
// each job, queue, drive and core from the partition that simulated it, in global id
// order, and the run-wide figures summed in that order -- the same document whatever the
// number of partitions or threads.
results::RunRecord merged(std::vector<results::RunRecord>& measured, const Partitioning* parts,
                          const LoadedScenario& loaded) {
  const Scenario& sc = loaded.scenario;
  auto owner = [&](uint32_t (Partitioning::*of)(uint32_t) const, uint32_t id) -> results::RunRecord& {
    return measured[parts ? (parts->*of)(id) : 0];
  };
  results::RunRecord r;
  r.seed = sc.seed;
  r.scenario = loaded.resolved;
  r.window = measured[0].window;
  for (uint32_t j = 0; j < measured[0].jobs.size(); ++j) {
    results::JobRecord& jr = owner(&Partitioning::job_part, j).jobs[j];
    r.aggregate.latency.merge(jr.figures.latency);
    r.aggregate.ios += jr.figures.ios;
    r.aggregate.bytes += jr.figures.bytes;
    r.jobs.push_back(std::move(jr));
  }
  for (uint32_t p = 0; p < measured.size(); ++p) {
    const results::Interrupts& irq = measured[p].aggregate.irq;
    r.aggregate.irq.useful += irq.useful;
    r.aggregate.irq.spurious += irq.spurious;
    r.aggregate.irq.masked_lazily += irq.masked_lazily;
    for (results::QueueRecord& q : measured[p].queues) {
      assert(&owner(&Partitioning::drive_part, q.drive) == &measured[p] && "an idle partition's queue did nothing");
      r.queues.push_back(std::move(q));
    }
  }
  std::stable_sort(r.queues.begin(), r.queues.end(), [](const auto& a, const auto& b) { return a.queue < b.queue; });
  for (uint32_t d = 0; d < sc.drives.size(); ++d) r.drives.push_back(std::move(owner(&Partitioning::drive_part, d).drives[d]));
  for (uint32_t c = 0; c < measured[0].cores.size(); ++c) r.cores.push_back(owner(&Partitioning::core_part, c).cores[c]);
  r.limits = limits_of(r, sc);
  r.warnings = loaded.warnings;
  if (sc.warmup_given) {
    // The loader's two reasons, in the order it applies them: the drives' drawn state makes
    // the warm-up at least its work-off, then a policy's first decision adds its time.
    const auto us = [](Duration d) { return std::to_string(d.count_ns() / 1000); };
    const Duration after_drives = max(*sc.warmup_given, sc.warmup_drive_state);
    std::string why;
    if (sc.warmup_drive_state > *sc.warmup_given)
      why = "the written drives' drawn initial state (write buffer fill and garbage-collection backlog, up to their "
            "profiles' initial_buffer_fill_max and initial_gc_backlog_max_us) can take " + us(sc.warmup_drive_state) +
            " us of flash work to work off (warmup_covers_drive_state false keeps the warm-up as given)";
    if (sc.warmup > after_drives)
      why += std::string(why.empty() ? "" : "; ") + sc.policy.name + "'s first decision comes " +
             us(sc.warmup - after_drives) + " us into the run (warmup_covers_policy false keeps the warm-up as given)";
    r.warnings.push_back("warmup_us lengthened from " + us(*sc.warmup_given) + " to " + us(sc.warmup) + ": " + why);
  }
  add_mode_shares(sc, r);
  uint64_t completed = 0;
  for (const results::DriveRecord& d : r.drives) completed += d.commands;
  if (r.aggregate.ios == 0 && completed > 0)
    r.warnings.push_back("no I/O was reaped in the measured window, though the drives completed " +
                         std::to_string(completed) + " commands in it: the window (" +
                         std::to_string(sc.duration.count_ns() / 1000) +
                         " us) is shorter than the jobs take to reap what completes (batches of iodepth_batch_complete_min, say), so "
                         "its rates are not the jobs'");
  warn_capped_timelines(r.queues, "queue", r.warnings);
  warn_capped_timelines(r.drives, "drive", r.warnings);
  return r;
}

// A record that breaks a law of the results is a bug of the model: the run fails loudly
// rather than write it.
void check(const results::RunRecord& r, const Scenario& sc, const RunOptions& opts) {
  if (!opts.check_invariants) return;
  const std::vector<std::string> broken = results::invariant_violations(r, sc);
  if (broken.empty()) return;
  std::string what = "the results break " + std::to_string(broken.size()) +
                     " of their invariants (a bug of the model: please report it with the scenario and seed):";
  for (std::size_t i = 0; i < broken.size() && i < 10; ++i) what += "\n  " + broken[i];
  if (broken.size() > 10) what += "\n  ... and " + std::to_string(broken.size() - 10) + " more";
  throw std::logic_error(what);
}

// The whole machine as one System: a scenario of one partition, or a run whose outputs
// follow every event of the machine in one order (the traces, a replay). `partitions`:
// how many the scenario has; more than one, and the results say why it ran as one.
json run_whole(const LoadedScenario& loaded, const Scenario& sc, std::size_t partitions, const std::string& why,
               const RunOptions& opts, RunInfo* info) {
  System sys(sc, opts.replay);
  sys.fold_empty_polls(opts.fold_empty_polls);
  sys.cap_timelines(opts.timeline_cap);
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
      if (auto ce = f.commit()) e = *ce;
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
  std::vector<results::RunRecord> measured;
  measured.push_back(measured_by(sys));
  results::RunRecord record = merged(measured, nullptr, loaded);
  check(record, sc, opts);
  if (partitions > 1)
    record.warnings.push_back("simulated as one System, not as its " + std::to_string(partitions) +
                              " independent partitions on their own threads: " + why +
                              " record the whole machine's events in one order");
  if (info) info->ios = record.aggregate.ios;
  json out = results::to_json(record);
  if (opts.record_out) *opts.record_out = record;
  if (opts.replay) {
    out["replay"] = replay_summary(*opts.replay, sys);
    if (opts.replay_diff_out) write_replay_diff(*opts.replay_diff_out, *opts.replay, sys);
  }

  if (info) info->events = sys.events();
  return out;
}

// Each partition as its own System, on up to `threads` threads, merged in global id order.
json run_partitioned(const LoadedScenario& loaded, const Scenario& sc, const Partitioning& parts, unsigned threads,
                     const RunOptions& opts, RunInfo* info) {
  std::vector<results::RunRecord> measured(parts.size());
  std::vector<uint64_t> events(parts.size());
  run_parallel(parts.size(), threads, [&](std::size_t p, const ProgressFn& progress) {
    System sys(sc);
    sys.fold_empty_polls(opts.fold_empty_polls);
    sys.cap_timelines(opts.timeline_cap);
    sys.limit_to(parts.parts()[p]);
    sys.run(progress);
    measured[p] = measured_by(sys);
    events[p] = sys.events();
  }, opts.progress);
  const results::RunRecord record = merged(measured, &parts, loaded);
  check(record, sc, opts);
  if (info) {
    info->ios = record.aggregate.ios;
    info->events = std::accumulate(events.begin(), events.end(), uint64_t{0});
  }
  if (opts.record_out) *opts.record_out = record;
  return results::to_json(record);
}

}  // namespace

json run_scenario(const LoadedScenario& loaded, const RunOptions& opts, RunInfo* info) {
  auto t0 = std::chrono::steady_clock::now();
  Scenario sc = loaded.scenario;
  if (opts.replay) {
    // The run covers the whole trace (its measured window may grow to do so).
    Time last = Time::zero();
    for (const ReplayCommand& c : opts.replay->commands) last = max(last, c.seen != Time::never() ? c.seen : c.submit);
    const Time end_needed = last + kReplayTail;
    if (Time::zero() + sc.warmup + sc.duration < end_needed) sc.duration = end_needed - (Time::zero() + sc.warmup);
  }
  const Partitioning parts = Partitioning::of(sc, Topology::of(sc));
  // What has one order for all the machine's events, and so cannot be split.
  std::string whole_machine;
  for (auto [given, option] : {std::pair{opts.trace_out || !opts.trace_path.empty(), "--trace"},
                               std::pair{opts.command_trace_out || !opts.command_trace_path.empty(), "--command-trace"},
                               std::pair{opts.replay != nullptr, "--replay"}})
    if (given) whole_machine += (whole_machine.empty() ? "" : " and ") + std::string(option);
  const bool whole = parts.size() == 1 || !whole_machine.empty();
  // Systems in flight at once: as many threads as asked, but no more Systems than fit
  // under the memory limit (the loader checked that one does).
  const uint64_t per_system = std::max<uint64_t>(estimate_memory(sc, {}).total(), 1);
  const unsigned fit = static_cast<unsigned>(std::clamp<uint64_t>(opts.memory_limit / per_system, 1, 1024));
  const unsigned threads = std::min(opts.threads > 0 ? opts.threads : default_threads(), fit);
  json out = whole ? run_whole(loaded, sc, parts.size(), whole_machine, opts, info)
                   : run_partitioned(loaded, sc, parts, threads, opts, info);
  if (info) {
    info->wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    info->partitions = static_cast<uint32_t>(parts.size());
    info->threads = whole ? 1 : static_cast<uint32_t>(std::min<std::size_t>(threads, parts.size()));
  }
  return out;
}

std::string dump_results(const json& results) { return results.dump(2) + "\n"; }

}  // namespace nvmesim
