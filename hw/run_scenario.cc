#include "hw/run_scenario.h"

#include <algorithm>
#include <array>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "app/run_record.h"

#include "hw/drive_session.h"
#include "hw/hw_queue_env.h"
#include "hw/io_buffers.h"
#include "hw/io_queue_count.h"
#include "hw/io_pattern.h"
#include "hw/hw_drive_env.h"
#include "hw/queue_runner.h"
#include "hw/refusal.h"
#include "policies/registry.h"

namespace nvmesim::hw {

namespace {

using nlohmann::json;

bool writes(RwMode m) { return m != RwMode::randread && m != RwMode::read; }


// What one job clone needs: its queue pair, buffers, environment and I/O pattern.
struct Lane {
  std::unique_ptr<nvme::QueuePair> qp;
  std::unique_ptr<IoBuffers> buffers;
  std::unique_ptr<HwQueueEnv> env;
  std::unique_ptr<IoPattern> pattern;
  std::exception_ptr error;
  Time stopped_at = Time::never();
  // The state at the start and the end of the measured window, taken by the
  // submitting task with the queue mutex held.
  struct Snapshot {
    bool taken = false;
    policy::QueueCounters counters;
    uint64_t held = 0;
    std::array<int64_t, 4> cpu_ns{};  // hardirq, softirq, irq_thread, app threads
  };
  Snapshot window_start, window_end;
};

int64_t self_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

template <class P>
void take_snapshot(Lane::Snapshot& s, HwQueueEnv& env, QueueRunner<P>& runner) {
  s.taken = true;
  s.counters = env.counters();
  s.held = env.interrupts_held();
  auto c = runner.cpu_time();
  s.cpu_ns = {c.hardirq, c.softirq, c.irq_thread, self_cpu_ns()};
}

struct RunShared {
  const RunOptions& opts;
  nvme::Controller& ctrl;
  std::atomic<bool> abort{false};
  bool stop_requested() const { return abort.load() || (opts.stop && opts.stop->load()); }
};

// The submitting task: keeps iodepth commands outstanding until the end or a stop,
// then waits (up to the grace period) for what is still inflight.
template <class P>
void app_loop(Lane& lane, QueueRunner<P>& runner, RunShared& shared, uint32_t iodepth, uint32_t batch,
              uint32_t complete_min, uint32_t blocks_per_io, Time measure_from, Time end) {
  HwQueueEnv& env = *lane.env;
  Time next_check = env.now();
  Time give_up = Time::never();
  for (;;) {
    Time t = env.now();
    bool stopping = shared.stop_requested() || t >= end;
    if (stopping && give_up == Time::never()) {
      give_up = t + shared.opts.stop_grace;
      lane.stopped_at = t;
    }
    {
      std::unique_lock lock(env.mutex());
      if (!lane.window_start.taken && t >= measure_from) take_snapshot(lane.window_start, env, runner);
      if (stopping && !lane.window_end.taken) {
        if (!lane.window_start.taken) take_snapshot(lane.window_start, env, runner);
        take_snapshot(lane.window_end, env, runner);
        env.set_measure_window(measure_from, std::min(t, end));  // the grace period is not measured
      }
      if (!stopping) {
        uint32_t pending = 0;
        while (env.outstanding() < iodepth && env.can_submit()) {
          bool is_write = false;
          uint64_t lba = lane.pattern->next(&is_write);
          env.submit(is_write ? trace::Op::write : trace::Op::read, lba, blocks_per_io);
          if (++pending == batch) {
            env.ring_doorbell();
            pending = 0;
          }
        }
        env.ring_doorbell();
      }
      if (stopping && env.outstanding() == 0) return;
      if constexpr (!P::kAppPolls) env.wait_completion(lock, Duration::ms(5), complete_min);
    }
    if constexpr (P::kAppPolls) runner.app_poll();

    t = env.now();
    if (t >= next_check) {
      next_check = t + Duration::ms(2);
      shared.ctrl.check_fatal();
      Time oldest;
      {
        std::lock_guard lock(env.mutex());
        oldest = env.oldest_submit();
      }
      if (oldest != Time::never() && t - oldest > shared.opts.io_timeout)
        throw nvme::CommandTimeout("I/O command on queue " + std::to_string(env.qid()) +
                                   " got no completion within " +
                                   std::to_string(shared.opts.io_timeout.count_ns() / 1000000) + " ms");
    }
    if (stopping && t >= give_up) return;  // the teardown resets the controller to abort them
  }
}

void write_trace(const std::string& path, const std::vector<Lane>& lanes,
                 const std::vector<trace::ModeRecord>& drive_modes) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write trace " + path);
  // Rows of all kinds and queues, in time order.
  struct Row {
    int64_t t;
    int kind;
    const void* rec;
  };
  std::vector<Row> rows;
  for (const auto& l : lanes) {
    for (const auto& r : l.env->commands()) rows.push_back({r.cqe_seen.ns(), 1, &r});
    for (const auto& r : l.env->irqs()) rows.push_back({r.at.ns(), 0, &r});
    for (const auto& r : l.env->modes()) rows.push_back({r.at.ns(), 2, &r});
  }
  for (const auto& r : drive_modes) rows.push_back({r.at.ns(), 2, &r});
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.t != b.t ? a.t < b.t : a.kind < b.kind;
  });
  trace::CommandTraceWriter w(out);
  for (const auto& r : rows) {
    if (r.kind == 0) w.write(*static_cast<const trace::IrqRecord*>(r.rec));
    if (r.kind == 1) w.write(*static_cast<const trace::CommandRecord*>(r.rec));
    if (r.kind == 2) w.write(*static_cast<const trace::ModeRecord*>(r.rec));
  }
  if (!out) throw std::runtime_error("writing trace " + path + " failed");
}

// The per-drive monitor of a drive policy: on_monitor now, then after each duration it
// returns, until stopped (a kworker's periodic work).
template <class D>
void monitor_loop(D& drive, HwDriveEnv& env, int stop_fd) {
  for (;;) {
    Duration next = drive.on_monitor(env);
    pollfd p{stop_fd, POLLIN, 0};
    if (poll(&p, 1, int(std::max<int64_t>(1, next.count_ns() / 1000000))) != 0) return;
  }
}

// What the results record about the hw run itself, next to the scenario.
struct HwRunFacts {
  uint32_t iodepth;
  uint32_t queue_depth;
  LbaRange range;
  bool interrupted;
  int64_t wall_ns;
  std::string drive_mode;  // the drive policy's final mode; "" for per-queue policies
};

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

// The results document in the simulator's layout (docs/results.md, "hw runs"): this
// runner fills the record, app/run_record.cc writes it.
void write_results(const LoadedScenario& loaded, const RunOptions& o, DriveSession& s, HwDriveEnv& drive_env,
                   const json& coalescing, const std::vector<Lane>& lanes,
                   const std::vector<policy::AnyQueuePolicy>& policies, const HwRunFacts& f, Duration window,
                   std::ostream& log) {
  const Scenario& sc = loaded.scenario;
  const JobSpec& job = sc.jobs.front();
  const nvme::NamespaceInfo& ns = s.ns();

  results::RunRecord r;
  r.source = "hw";
  r.seed = sc.seed;
  r.scenario = loaded.resolved;
  r.window = window;
  uint64_t completions = 0, errors = 0, window_cqes = 0;
  std::map<uint32_t, results::CoreRecord> cores;  // nominal core -> context CPU time
  for (uint32_t i = 0; i < lanes.size(); ++i) {
    const Lane& l = lanes[i];
    const HwQueueEnv& e = *l.env;
    const policy::QueueCounters c = l.window_end.counters - l.window_start.counters;
    const uint64_t held = l.window_end.held - l.window_start.held;
    results::Figures fig;
    fig.ios = e.measured_completions();
    fig.bytes = fig.ios * job.bs;
    fig.latency = e.latency();
    fig.irq.add(c, held);
    r.aggregate.irq.add(c, held);
    r.aggregate.latency.merge(e.latency());
    r.aggregate.ios += fig.ios;
    r.aggregate.bytes += fig.bytes;
    completions += e.completed();
    errors += e.errors();
    window_cqes += c.completions;
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
    q.policy = std::string(policy::policy_name(policies[i]));
    q.final_mode = std::visit([](const auto& p) { return std::string(p.mode()); }, policies[i]);
    q.counters = c;
    q.timeline = timeline_of(e.modes(), &q.timeline_dropped);
    q.hw = {{"vector", e.has_vector() ? json(e.vector()) : json(nullptr)},
            {"depth", e.depth()},
            {"completions", e.completed()},
            {"errors", e.errors()},
            {"interrupts_held", e.interrupts_held()},
            {"sq_doorbells", e.queue().sq_doorbell_writes},
            {"cq_doorbells", e.queue().cq_doorbell_writes},
            {"stray_cqes", e.stray_cqes()},
            {"trace_dropped", e.trace_dropped()}};
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

  results::DriveRecord drive;
  drive.figures = r.aggregate;
  drive.name = sc.drives.at(job.drives.empty() ? 0 : job.drives.front()).name;
  drive.commands = window_cqes;
  drive.timeline = timeline_of(drive_env.modes(), nullptr);
  drive.final_mode = f.drive_mode;
  drive.hw = {{"bdf", o.bdf},
              {"model", s.info().model},
              {"serial", s.info().serial},
              {"firmware", s.info().firmware},
              {"nsid", ns.nsid},
              {"block_bytes", ns.block_bytes},
              {"namespace_blocks", ns.size_blocks},
              {"coalescing", coalescing},
              {"set_features_sent", drive_env.set_features_sent()},
              {"set_features_refused", drive_env.set_features_refused()},
              {"last_refusal", drive_env.last_refusal()}};
  r.drives.push_back(std::move(drive));

  // Cores: CPU time of the threads standing in for each context of the clones with
  // that nominal core. The threads are not pinned, so idle is what is left of the
  // window (0 when they used more than one CPU's worth).
  for (auto& [core, cr] : cores) r.cores.push_back(cr);

  r.hw = {{"job",
           {{"index", 0},
            {"of", sc.jobs.size()},
            {"name", job.name},
            {"rw", rw_name(job.rw)},
            {"bs", job.bs},
            {"iodepth", f.iodepth},
            {"iodepth_batch_submit", job.iodepth_batch_submit},
            {"iodepth_batch_complete_min", job.iodepth_batch_complete_min},
            {"queues", lanes.size()},
            {"queue_depth", f.queue_depth},
            {"lba_first", f.range.first},
            {"lba_count", f.range.count}}},
          {"interrupted", f.interrupted},
          {"warmup_ns", sc.warmup.count_ns()},
          {"wall_ns", f.wall_ns},
          {"completions", completions},
          {"errors", errors}};
  const json doc = results::to_json(r);
  const sim::Histogram& all_lat = r.aggregate.latency;
  const uint64_t all_ios = r.aggregate.ios;
  const results::Interrupts& all_irq = r.aggregate.irq;

  std::string text = doc.dump(2) + "\n";  // dump_results' canonical text
  if (o.results_path.empty()) {
    log << text;
  } else {
    std::ofstream out(o.results_path);
    out << text;
    if (!out) throw std::runtime_error("cannot write results " + o.results_path);
  }
  double secs = static_cast<double>(window.count_ns()) / 1e9;
  log << "done: " << all_ios << " completions in " << window.count_ns() / 1000000 << " ms, "
      << uint64_t(secs > 0 ? static_cast<double>(all_ios) / secs : 0) << " IOPS, p50 " << all_lat.quantile(0.5) / 1000
      << " us, p99 " << all_lat.quantile(0.99) / 1000 << " us, interrupts " << all_irq.useful << " useful / "
      << all_irq.spurious << " spurious" << (errors ? ", " + std::to_string(errors) + " command errors" : "")
      << "\n";
}

template <class P>
int run_typed(const LoadedScenario& loaded, const RunOptions& o, DriveSession& s, const policy::PolicyInfo& info,
              std::vector<policy::AnyQueuePolicy>& policies, uint32_t depth, std::ostream& log) {
  const Scenario& sc = loaded.scenario;
  const JobSpec& job = sc.jobs.front();
  nvme::Controller& ctrl = s.ctrl();
  const nvme::NamespaceInfo& ns = s.ns();
  const uint32_t nq = uint32_t(policies.size());
  const uint32_t blocks_per_io = job.bs / ns.block_bytes;
  const uint32_t iodepth = std::min(job.iodepth, depth - 1);
  if (iodepth < job.iodepth)
    log << "note: iodepth " << job.iodepth << " capped at " << iodepth << " (queue depth " << depth << ")\n";

  LbaRange range = o.allow_write ? *o.allow_write : LbaRange{0, ns.size_blocks};
  if (range.count < blocks_per_io) throw Refusal("the LBA range holds no I/O of bs " + std::to_string(job.bs));

  s.irqs().enable(P::kUsesVector ? nq + 1 : 1);  // vector 0: admin queue

  const policy::ParamMap& params = sc.policy.params;
  json coalescing = nullptr;
  if (info.static_coalescing) {
    policy::Coalescing c = info.static_coalescing(params);
    nvme::AdminResult r = ctrl.set_feature(nvme::feature::kInterruptCoalescing,
                                           (c.time_100us << 8) | (c.thr & 0xff));
    coalescing = {{"thr", c.thr}, {"time_100us", c.time_100us}, {"applied", r.ok()},
                  {"status", r.ok() ? "ok" : nvme::describe_status(r.status)}};
    if (!r.ok())
      log << "note: the controller refused Set Features 08h (" << nvme::describe_status(r.status)
          << "): running without coalescing\n";
  }

  std::vector<Lane> lanes(nq);
  for (uint32_t i = 0; i < nq; ++i) {
    uint16_t qid = uint16_t(i + 1);
    Lane& l = lanes[i];
    l.qp = ctrl.create_io_queue(qid, depth, P::kUsesVector, P::kUsesVector ? qid : 0);
    l.buffers = std::make_unique<IoBuffers>(s.dma(), l.qp->depth(), job.bs);
    if (writes(job.rw))
      for (uint32_t c = 0; c + 1 < l.qp->depth(); ++c)
        for (uint32_t b = 0; b < job.bs; ++b) l.buffers->data(uint16_t(c))[b] = uint8_t(0xa5 ^ b ^ c);
    QueueSetup qs;
    qs.nsid = o.nsid;
    qs.has_vector = P::kUsesVector;
    qs.vector = P::kUsesVector ? qid : 0;
    qs.hw_mask = o.hw_mask;
    l.env = std::make_unique<HwQueueEnv>(*l.qp, *l.buffers, &s.irqs(), s.clock(), qs);
    l.pattern = std::make_unique<IoPattern>(job.rw, job.rwmixread, range.first, range.count,
                                            blocks_per_io, sc.seed * 1000003 + i);
  }

  RunShared shared{o, ctrl};
  std::vector<std::unique_ptr<QueueRunner<P>>> runners;
  for (uint32_t i = 0; i < nq; ++i) {
    runners.push_back(std::make_unique<QueueRunner<P>>(*lanes[i].env, std::get<P>(policies[i]), &s.irqs()));
    runners.back()->start();
  }
  Time start = s.clock().now();
  Time measure_from = start + sc.warmup;
  Time end = measure_from + sc.duration;
  for (auto& l : lanes) l.env->set_measure_window(measure_from, end);

  std::vector<HwQueueEnv*> envs;
  for (auto& l : lanes) envs.push_back(l.env.get());
  HwDriveEnv drive_env(ctrl, envs, s.clock());
  std::optional<policy::AnyDrivePolicy> drive;
  UniqueFd monitor_stop(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  std::thread monitor;
  std::exception_ptr monitor_error;
  if (info.per_drive()) {
    drive.emplace(info.make_drive(params));
    monitor = std::thread([&] {
      try {
        std::visit([&](auto& d) { monitor_loop(d, drive_env, monitor_stop.get()); }, *drive);
      } catch (...) {
        monitor_error = std::current_exception();
        shared.abort = true;
      }
    });
  }

  log << "running " << sc.policy.name << ": " << rw_name(job.rw) << " bs=" << job.bs << " iodepth=" << iodepth
      << " queues=" << nq << " for " << sc.duration.count_ns() / 1000000 << " ms (+"
      << sc.warmup.count_ns() / 1000000 << " ms warm-up)\n"
      << std::flush;
  std::vector<std::thread> apps;
  for (uint32_t i = 0; i < nq; ++i)
    apps.emplace_back([&, i] {
      try {
        app_loop<P>(lanes[i], *runners[i], shared, iodepth, std::max(1u, job.iodepth_batch_submit),
                    std::min(job.iodepth_batch_complete_min, iodepth), blocks_per_io, measure_from, end);
      } catch (...) {
        lanes[i].error = std::current_exception();
        shared.abort = true;
      }
    });
  for (auto& t : apps) t.join();
  if (monitor.joinable()) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(monitor_stop.get(), &one, sizeof one);
    monitor.join();
  }
  for (auto& r : runners) r->stop();
  Time finished = s.clock().now();

  // Teardown: delete the queues if they are idle; a reset aborts whatever is still
  // outstanding (after a timeout or a grace period that ran out).
  uint32_t left = 0;
  for (auto& l : lanes) left += l.env->outstanding();
  std::exception_ptr error = monitor_error;
  for (auto& l : lanes)
    if (l.error && !error) error = l.error;
  if (left || error) {
    if (left) log << "aborting " << left << " outstanding command(s) by resetting the controller\n";
    s.mark_failed();
    ctrl.disable();
  } else {
    for (auto& l : lanes) ctrl.delete_io_queue(*l.qp);
  }
  if (error) std::rethrow_exception(error);

  bool interrupted = o.stop && o.stop->load();
  Time measured_end = end;
  for (auto& l : lanes) measured_end = std::min(measured_end, l.stopped_at);
  const Duration window = measured_end > measure_from ? measured_end - measure_from : Duration::zero();
  HwRunFacts facts{iodepth, depth, range, interrupted, (finished - start).count_ns(),
                    drive ? std::string(policy::drive_policy_mode(*drive)) : std::string()};
  write_results(loaded, o, s, drive_env, coalescing, lanes, policies, facts, window, log);
  if (!o.trace_path.empty()) write_trace(o.trace_path, lanes, drive_env.modes());
  if (interrupted) {
    log << "interrupted: stopped submitting, " << (left ? "inflight commands aborted" : "inflight commands finished")
        << "\n";
    return exit_code::kInterrupted;
  }
  uint64_t errors = 0;
  for (auto& l : lanes) errors += l.env->errors();
  return errors ? exit_code::kError : exit_code::kOk;
}

}  // namespace

int run_scenario(const LoadedScenario& loaded, const RunOptions& o, std::ostream& log) {
  const Scenario& sc = loaded.scenario;
  if (sc.jobs.empty()) throw std::runtime_error("scenario has no jobs");
  const JobSpec& job = sc.jobs.front();
  if (sc.jobs.size() > 1)
    log << "note: running the first of " << sc.jobs.size() << " jobs (\"" << job.name << "\"); the others are ignored\n";
  if (job.rate_iops > 0) log << "note: rate_iops is not applied: the job runs closed-loop at its iodepth\n";
  if (writes(job.rw) && !o.allow_write)
    throw Refusal("the job writes (rw=" + std::string(rw_name(job.rw)) +
                  "): pass --allow-write FIRST_LBA:COUNT to name the blocks it may overwrite");

  DriveSession s(o.bdf, o.nsid);
  const nvme::NamespaceInfo& ns = s.ns();
  if (job.bs % ns.block_bytes) throw std::runtime_error("bs " + std::to_string(job.bs) + " is not a multiple of the block size");
  if (job.bs > s.info().max_transfer_bytes())
    throw std::runtime_error("bs " + std::to_string(job.bs) + " exceeds the controller's maximum transfer of " +
                             std::to_string(s.info().max_transfer_bytes()) + " bytes");
  if (o.allow_write && !range_within(*o.allow_write, ns.size_blocks))
    throw Refusal("--allow-write range " + std::to_string(o.allow_write->first) + ":" +
                  std::to_string(o.allow_write->count) + " ends past the namespace (" +
                  std::to_string(ns.size_blocks) + " blocks)");

  uint32_t depth = std::min<uint32_t>(sc.queue_depth, s.ctrl().cap().mqes());

  uint32_t want = job.numjobs;
  uint32_t granted = s.ctrl().set_queue_count(want);
  uint32_t nq = io_queue_count(o.bdf.c_str(), want, granted, s.device().msix_vectors());
  if (nq < want) log << "note: " << nq << " of " << want << " queues available\n";

  const policy::ParamMap& params = sc.policy.params;
  // The loader validated against the scenario's depth; the controller's may be smaller.
  if (auto err = policy::validate_policy(sc.policy.name, params, depth))
    throw Refusal("/policy/params" + (err->param.empty() ? "" : "/" + err->param) + ": " + err->message +
                  " (queue depth " + std::to_string(depth) + " on this controller)");
  const policy::PolicyInfo& info = *policy::find_policy(sc.policy.name);
  // Every I/O queue here has its own MSI-X vector and nothing is threaded, so queues
  // eligible only with a dedicated vector are eligible.
  std::vector<policy::AnyQueuePolicy> policies;
  for (uint32_t i = 0; i < nq; ++i) policies.push_back(info.make(params));
  int rc;
  try {
    rc = std::visit(
        [&](auto& first) {
          using P = std::decay_t<decltype(first)>;
          return run_typed<P>(loaded, o, s, info, policies, depth, log);
        },
        policies.front());
  } catch (const nvme::NvmeError&) {
    s.mark_failed();
    throw;
  }
  if (s.close())
    log << "controller shut down cleanly (CC.SHN, CSTS.SHST complete), device released\n";
  else
    log << "controller was reset (CC.EN=0) instead of shut down, device released\n";
  return rc;
}

}  // namespace nvmesim::hw
