#include "hw/runner/results/run_results.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>
#include <variant>

namespace nvmesim::hw {

namespace {

// The core the simulator would give job clone `i` (cpus_allowed, split; else in order).
uint32_t nominal_core(const JobSpec& job, uint32_t i) {
  return job.cpus_allowed.empty() ? i : job.cpus_allowed[i % job.cpus_allowed.size()];
}

// A recorded mode timeline, capped as the simulator's (results::kTimelineCap).
std::vector<results::TimelineEntry> timeline_of(const std::vector<trace::ModeRecord>& modes, uint64_t* dropped) {
  std::vector<results::TimelineEntry> tl;
  for (size_t k = 0; k < modes.size() && k < results::kTimelineCap; ++k)
    tl.push_back({modes[k].at.ns(), modes[k].from, modes[k].to, modes[k].reason});
  if (dropped) *dropped = modes.size() > results::kTimelineCap ? modes.size() - results::kTimelineCap : 0;
  return tl;
}

// Lane `i`'s queue and job records, its share of the aggregate, and the CPU time of its
// threads added to its nominal core. The threads are not pinned, so a core's idle is
// what is left of the window (0 when they used more than one CPU's worth).
void add_lane(results::RunRecord& r, std::map<uint32_t, results::CoreRecord>& cores, const Lane& l, uint32_t i,
              const JobSpec& job, const policy::AnyQueuePolicy& policy) {
  const HwQueueEnv& e = *l.env;
  const QueueRecorder& rec = e.recorder();
  const policy::QueueCounters c = l.window_end.counters - l.window_start.counters;
  const uint64_t held = l.window_end.held - l.window_start.held;
  results::Figures fig;
  fig.ios = rec.measured_completions();
  fig.bytes = fig.ios * job.bs;
  fig.latency = rec.latency();
  fig.irq.add(c, held);
  r.aggregate.irq.add(c, held);
  r.aggregate.latency.merge(rec.latency());
  r.aggregate.ios += fig.ios;
  r.aggregate.bytes += fig.bytes;
  const uint32_t core = nominal_core(job, i);
  results::CoreRecord& cr = cores[core];
  cr.core = core;
  cr.hardirq_ns += l.window_end.cpu_ns[0] - l.window_start.cpu_ns[0];
  cr.softirq_ns += l.window_end.cpu_ns[1] - l.window_start.cpu_ns[1];
  cr.irq_thread_ns += l.window_end.cpu_ns[2] - l.window_start.cpu_ns[2];
  cr.app_ns += l.window_end.cpu_ns[3] - l.window_start.cpu_ns[3];

  results::QueueRecord q;
  q.figures = fig;
  q.queue = i;
  q.drive = 0;
  q.qid = e.qid();
  q.core = core;
  q.polled = !e.has_vector();
  q.policy = std::string(policy::policy_name(policy));
  q.final_mode = std::visit([](const auto& p) { return std::string(p.mode()); }, policy);
  q.counters = c;
  q.timeline = timeline_of(rec.modes(), &q.timeline_dropped);
  results::HwQueueFacts& h = q.hw.emplace();
  if (e.has_vector()) h.vector = e.vector();
  h.depth = e.depth();
  h.completions = rec.completed();
  h.errors = rec.errors();
  h.interrupts_held = rec.interrupts_held();
  h.sq_doorbells = e.queue().sq_doorbell_writes;
  h.cq_doorbells = e.queue().cq_doorbell_writes;
  h.stray_cqes = rec.stray_cqes();
  h.trace_dropped = rec.trace_dropped();
  r.queues.push_back(std::move(q));

  results::JobRecord jb;
  jb.figures = std::move(fig);
  jb.name = job.name;
  jb.job = 0;
  jb.clone = i;
  jb.core = core;
  jb.queues = {i};
  r.jobs.push_back(std::move(jb));
}

results::DriveRecord drive_record(const results::RunRecord& r, const Scenario& sc, const HwRunOptions& o,
                                  DriveSession& s, const HwDriveEnv& drive_env, const std::vector<Lane>& lanes,
                                  const RunOutcome& f) {
  const JobSpec& job = sc.jobs.front();
  const nvme::NamespaceInfo& ns = s.ns();
  results::DriveRecord drive;
  drive.figures = r.aggregate;
  drive.name = sc.drives.at(job.drives.empty() ? 0 : job.drives.front()).name;
  for (const Lane& l : lanes) drive.commands += (l.window_end.counters - l.window_start.counters).completions;
  drive.timeline = timeline_of(drive_env.modes(), &drive.timeline_dropped);
  drive.final_mode = f.drive_mode;
  results::HwDriveFacts& h = drive.hw.emplace();
  h.bdf = o.bdf;
  h.model = s.info().model;
  h.serial = s.info().serial;
  h.firmware = s.info().firmware;
  h.nsid = ns.nsid;
  h.block_bytes = ns.block_bytes;
  h.namespace_blocks = ns.size_blocks;
  h.coalescing = f.coalescing;
  h.set_features_sent = drive_env.set_features_sent();
  h.set_features_refused = drive_env.set_features_refused();
  h.last_refusal = drive_env.last_refusal();
  return drive;
}

// The results' "hw" section: the job as run and the run's own facts.
results::HwRunFacts run_facts(const Scenario& sc, const std::vector<Lane>& lanes, const RunOutcome& f) {
  const JobSpec& job = sc.jobs.front();
  results::HwRunFacts h;
  for (const Lane& l : lanes) {
    h.completions += l.env->recorder().completed();
    h.errors += l.env->recorder().errors();
  }
  results::HwJobFacts& j = h.job;
  j.index = 0;
  j.of = sc.jobs.size();
  j.name = job.name;
  j.rw = rw_name(job.rw);
  j.bs = job.bs;
  j.iodepth = f.iodepth;
  j.iodepth_batch_submit = job.iodepth_batch_submit;
  j.iodepth_batch_complete_min = job.iodepth_batch_complete_min;
  j.queues = lanes.size();
  j.queue_depth = f.queue_depth;
  j.lba_first = f.range.first;
  j.lba_count = f.range.count;
  h.interrupted = f.interrupted;
  h.warmup_ns = sc.warmup.count_ns();
  h.wall_ns = f.wall_ns;
  return h;
}

void log_summary(const results::RunRecord& r, Duration window, uint64_t errors, std::ostream& log) {
  const sim::Histogram& lat = r.aggregate.latency;
  const uint64_t ios = r.aggregate.ios;
  const results::Interrupts& irq = r.aggregate.irq;
  double secs = static_cast<double>(window.count_ns()) / 1e9;
  log << "done: " << ios << " completions in " << window.count_ns() / 1000000 << " ms, "
      << uint64_t(secs > 0 ? static_cast<double>(ios) / secs : 0) << " IOPS, p50 " << lat.quantile(0.5) / 1000
      << " us, p99 " << lat.quantile(0.99) / 1000 << " us, interrupts " << irq.useful << " useful / "
      << irq.spurious << " spurious" << (errors ? ", " + std::to_string(errors) + " command errors" : "")
      << "\n";
}

}  // namespace

void write_results(const LoadedScenario& loaded, const HwRunOptions& o, DriveSession& s,
                   const HwDriveEnv& drive_env, const std::vector<Lane>& lanes,
                   const std::vector<policy::AnyQueuePolicy>& policies, const RunOutcome& f,
                   std::ostream& log) {
  const Scenario& sc = loaded.scenario;
  results::RunRecord r;
  r.source = "hw";
  r.seed = sc.seed;
  r.scenario = loaded.resolved;
  r.window = f.window;
  r.warnings = loaded.warnings;  // the loader's, as a simulated run's results carry them
  std::map<uint32_t, results::CoreRecord> cores;  // nominal core -> context CPU time
  for (uint32_t i = 0; i < lanes.size(); ++i) add_lane(r, cores, lanes[i], i, sc.jobs.front(), policies[i]);
  r.drives.push_back(drive_record(r, sc, o, s, drive_env, lanes, f));
  for (auto& [core, cr] : cores) r.cores.push_back(cr);
  r.hw = run_facts(sc, lanes, f);

  std::string text = results::to_json(r).dump(2) + "\n";  // dump_results' canonical text
  if (o.results_path.empty()) {
    log << text;
  } else {
    std::ofstream out(o.results_path);
    out << text;
    if (!out) throw std::runtime_error("cannot write results " + o.results_path);
  }
  log_summary(r, f.window, r.hw->errors, log);
}

void write_trace(const std::string& path, const std::vector<Lane>& lanes,
                 const std::vector<trace::ModeRecord>& drive_modes) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write trace " + path);
  std::vector<const QueueRecorder*> queues;
  for (const auto& l : lanes) queues.push_back(&l.env->recorder());
  write_trace(out, queues, drive_modes);
  if (!out) throw std::runtime_error("writing trace " + path + " failed");
}

void write_trace(std::ostream& out, const std::vector<const QueueRecorder*>& queues,
                 const std::vector<trace::ModeRecord>& drive_modes) {
  // Rows of all kinds and queues, in time order; the kind orders rows of equal time.
  enum Kind { kIrq, kCommand, kMode, kInflight };
  struct Row {
    int64_t t;
    Kind kind;
    const void* rec;
  };
  std::vector<Row> rows;
  for (const QueueRecorder* rec : queues) {
    for (const auto& r : rec->commands()) rows.push_back({r.cqe_seen.ns(), kCommand, &r});
    for (const auto& r : rec->irqs()) rows.push_back({r.at.ns(), kIrq, &r});
    for (const auto& r : rec->modes()) rows.push_back({r.at.ns(), kMode, &r});
    for (const auto& r : rec->inflight()) rows.push_back({r.at.ns(), kInflight, &r});
  }
  for (const auto& r : drive_modes) rows.push_back({r.at.ns(), kMode, &r});
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.t != b.t ? a.t < b.t : a.kind < b.kind;
  });
  trace::CommandTraceWriter w(out);
  for (const auto& r : rows) {
    switch (r.kind) {
      case kIrq: w.write(*static_cast<const trace::IrqRecord*>(r.rec)); break;
      case kCommand: w.write(*static_cast<const trace::CommandRecord*>(r.rec)); break;
      case kMode: w.write(*static_cast<const trace::ModeRecord*>(r.rec)); break;
      case kInflight: w.write(*static_cast<const trace::InflightRecord*>(r.rec)); break;
    }
  }
}

}  // namespace nvmesim::hw
