#include "hw/runner/run/run_on_device.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <variant>
#include <vector>

#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "hw/base/refusal.h"
#include "hw/runner/env/drive_env.h"
#include "hw/runner/env/queue_env.h"
#include "hw/runner/env/queue_runner.h"
#include "hw/runner/io/io_buffers.h"
#include "hw/runner/io/io_pattern.h"
#include "hw/runner/results/run_results.h"
#include "hw/runner/run/drive_session.h"
#include "hw/runner/run/io_queue_count.h"
#include "hw/runner/run/lane.h"
#include "policies/api/policy_concepts.h"
#include "policies/queue_eligibility.h"
#include "policies/registry.h"

namespace nvmesim::hw {

namespace {

bool writes(RwMode m) { return m != RwMode::randread && m != RwMode::read; }


int64_t self_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

template <policy::QueuePolicy<HwQueueEnv> P>
void take_snapshot(Lane::Snapshot& s, HwQueueEnv& env, QueueRunner<P>& runner) {
  s.taken = true;
  s.counters = env.counters();
  s.held = env.recorder().interrupts_held();
  auto c = runner.cpu_time();
  s.cpu_ns = {c.hardirq, c.softirq, c.irq_thread, self_cpu_ns()};
}

struct RunShared {
  const HwRunOptions& opts;
  nvme::Controller& ctrl;
  std::atomic<bool> abort{false};
  bool stop_requested() const { return abort.load() || (opts.stop && opts.stop->load()); }
};

// The submitting task: keeps iodepth commands outstanding until the end or a stop,
// then waits (up to the grace period) for what is still inflight.
template <policy::QueuePolicy<HwQueueEnv> P>
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
        env.recorder().set_measure_window(measure_from, std::min(t, end));  // the grace period is not measured
      }
      if (!stopping) {
        uint32_t pending = 0;
        while (env.submitter().outstanding() < iodepth && env.submitter().can_submit()) {
          bool is_write = false;
          uint64_t lba = lane.pattern->next(&is_write);
          env.submitter().submit(is_write ? trace::Op::write : trace::Op::read, lba, blocks_per_io);
          if (++pending == batch) {
            env.submitter().ring_doorbell();
            pending = 0;
          }
        }
        env.submitter().ring_doorbell();
      }
      if (stopping && env.submitter().outstanding() == 0) return;
      if constexpr (!P::kAppPolls) env.completion_wait().wait(lock, Duration::ms(5), complete_min);
    }
    if constexpr (P::kAppPolls) runner.app_poll();

    t = env.now();
    if (t >= next_check) {
      next_check = t + Duration::ms(2);
      shared.ctrl.check_fatal();
      Time oldest;
      {
        std::lock_guard lock(env.mutex());
        oldest = env.submitter().oldest_submit();
      }
      if (oldest != Time::never() && t - oldest > shared.opts.io_timeout)
        throw nvme::CommandTimeout("I/O command on queue " + std::to_string(env.qid()) +
                                   " got no completion within " +
                                   std::to_string(shared.opts.io_timeout.count_ns() / 1000000) + " ms");
    }
    if (stopping && t >= give_up) return;  // the teardown resets the controller to abort them
  }
}

// The per-drive monitor of a drive policy: on_monitor now, then after each duration it
// returns, until stopped (a kworker's periodic work).
template <policy::DrivePolicy<HwDriveEnv> D>
void monitor_loop(D& drive, HwDriveEnv& env, int stop_fd) {
  for (;;) {
    Duration next = drive.on_monitor(env);
    pollfd p{stop_fd, POLLIN, 0};
    if (poll(&p, 1, int(std::max<int64_t>(1, next.count_ns() / 1000000))) != 0) return;
  }
}

// The job's shape on this controller.
struct JobPlan {
  uint32_t depth;          // queue depth, capped by CAP.MQES
  uint32_t iodepth;        // capped at depth - 1
  uint32_t blocks_per_io;  // bs / block size
  LbaRange range;          // where the I/O goes
};

JobPlan plan_job(const JobSpec& job, const HwRunOptions& o, const nvme::NamespaceInfo& ns, uint32_t depth,
                 std::ostream& log) {
  JobPlan p{depth, std::min(job.iodepth, depth - 1), job.bs / ns.block_bytes,
            o.allow_write ? *o.allow_write : LbaRange{0, ns.size_blocks}};
  if (p.iodepth < job.iodepth)
    log << "note: iodepth " << job.iodepth << " capped at " << p.iodepth << " (queue depth " << depth << ")\n";
  if (p.range.count < p.blocks_per_io)
    throw Refusal("the LBA range holds no I/O of bs " + std::to_string(job.bs));
  return p;
}

// Set Features 08h for a policy with static coalescing; what was asked and what the
// controller said, for the results (none when the policy has none).
std::optional<results::HwCoalescing> apply_static_coalescing(const policy::PolicyInfo& info,
                                                             const policy::ParamMap& params, nvme::Controller& ctrl,
                                                             std::ostream& log) {
  if (!info.static_coalescing) return std::nullopt;
  policy::Coalescing c = info.static_coalescing(params);
  nvme::AdminResult r = ctrl.set_feature(nvme::feature::kInterruptCoalescing,
                                         (c.time_100us << 8) | (c.thr & 0xff));
  if (!r.ok())
    log << "note: the controller refused Set Features 08h (" << nvme::describe_status(r.status)
        << "): running without coalescing\n";
  return results::HwCoalescing{c.thr, c.time_100us, r.ok(), r.ok() ? "ok" : nvme::describe_status(r.status)};
}

// One lane per I/O queue: queue pair (vector = qid unless polled), buffers (filled with
// a pattern when the job writes), env, and an I/O pattern seeded per clone.
template <policy::QueuePolicy<HwQueueEnv> P>
std::vector<Lane> make_lanes(const Scenario& sc, const HwRunOptions& o, DriveSession& s, const JobPlan& plan,
                             uint32_t nq) {
  const JobSpec& job = sc.jobs.front();
  std::vector<Lane> lanes(nq);
  for (uint32_t i = 0; i < nq; ++i) {
    uint16_t qid = uint16_t(i + 1);
    Lane& l = lanes[i];
    l.qp = s.ctrl().create_io_queue(qid, plan.depth, P::kUsesVector, P::kUsesVector ? qid : 0);
    l.buffers = std::make_unique<IoBuffers>(s.dma(), l.qp->depth(), job.bs);
    if (writes(job.rw))
      for (uint32_t c = 0; c + 1 < l.qp->depth(); ++c)
        for (uint32_t b = 0; b < job.bs; ++b) l.buffers->data(uint16_t(c))[b] = uint8_t(0xa5 ^ b ^ c);
    QueueSetup qs;
    qs.nsid = o.nsid;
    qs.has_vector = P::kUsesVector;
    qs.vector = P::kUsesVector ? qid : 0;
    qs.hw_mask = o.hw_mask;
    qs.watch_latency = policy::watches_latency<P>();
    qs.drive_completions = &s.completions();
    qs.drive_word = &s.policy_word();
    l.env = std::make_unique<HwQueueEnv>(*l.qp, *l.buffers, &s.irqs(), s.clock(), qs);
    l.pattern = std::make_unique<IoPattern>(job.rw, job.rwmixread, plan.range.first, plan.range.count,
                                            plan.blocks_per_io, sc.seed * 1000003 + i);
  }
  return lanes;
}

// The drive policy's monitor thread, when the policy is per drive; its error, if any,
// stops the run.
class DriveMonitor {
 public:
  DriveMonitor(const policy::PolicyInfo& info, const policy::ParamMap& params, HwDriveEnv& env,
               RunShared& shared)
      : stop_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (!info.per_drive()) return;
    drive_.emplace(info.make_drive(params));
    thread_ = std::thread([&env, &shared, this] {
      try {
        std::visit([&](auto& d) { monitor_loop(d, env, stop_.get()); }, *drive_);
      } catch (...) {
        error_ = std::current_exception();
        shared.abort = true;
      }
    });
  }
  ~DriveMonitor() { stop(); }
  void stop() {
    if (!thread_.joinable()) return;
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(stop_.get(), &one, sizeof one);
    thread_.join();
  }
  std::exception_ptr error() const { return error_; }
  std::string mode() const { return drive_ ? std::string(policy::drive_policy_mode(*drive_)) : std::string(); }

 private:
  UniqueFd stop_;
  std::optional<policy::AnyDrivePolicy> drive_;
  std::thread thread_;
  std::exception_ptr error_;
};

// Runs every lane's submitting task to the end of the window (or a stop), the queue
// runners' threads around them.
template <policy::QueuePolicy<HwQueueEnv> P>
void run_lanes(std::vector<Lane>& lanes, std::vector<QueueRunner<P>*> runners, RunShared& shared,
               const JobSpec& job, const JobPlan& plan, Time measure_from, Time end) {
  std::vector<std::thread> apps;
  for (uint32_t i = 0; i < lanes.size(); ++i)
    apps.emplace_back([&, i] {
      try {
        app_loop<P>(lanes[i], *runners[i], shared, plan.iodepth, std::max(1u, job.iodepth_batch_submit),
                    std::min(job.iodepth_batch_complete_min, plan.iodepth), plan.blocks_per_io, measure_from,
                    end);
      } catch (...) {
        lanes[i].error = std::current_exception();
        shared.abort = true;
      }
    });
  for (auto& t : apps) t.join();
}

// Deletes the queues if they are idle; a reset aborts whatever is still outstanding
// (after a timeout or a grace period that ran out). Returns how many were.
uint32_t tear_down_queues(std::vector<Lane>& lanes, DriveSession& s, bool failed, std::ostream& log) {
  uint32_t left = 0;
  for (auto& l : lanes) left += l.env->submitter().outstanding();
  if (left || failed) {
    if (left) log << "aborting " << left << " outstanding command(s) by resetting the controller\n";
    s.mark_failed();
    s.ctrl().disable();
  } else {
    for (auto& l : lanes) s.ctrl().delete_io_queue(*l.qp);
  }
  return left;
}

template <policy::QueuePolicy<HwQueueEnv> P>
int run_typed(const LoadedScenario& loaded, const HwRunOptions& o, DriveSession& s,
              const policy::PolicyInfo& info, std::vector<policy::AnyQueuePolicy>& policies, uint32_t depth,
              std::ostream& log) {
  const Scenario& sc = loaded.scenario;
  const JobSpec& job = sc.jobs.front();
  const uint32_t nq = uint32_t(policies.size());
  const JobPlan plan = plan_job(job, o, s.ns(), depth, log);
  s.irqs().enable(P::kUsesVector ? nq + 1 : 1);  // vector 0: admin queue
  RunOutcome facts{plan.iodepth, depth, plan.range, false, 0, "",
                   apply_static_coalescing(info, sc.policy.params, s.ctrl(), log), Duration::zero()};

  std::vector<Lane> lanes = make_lanes<P>(sc, o, s, plan, nq);
  RunShared shared{o, s.ctrl()};
  std::vector<std::unique_ptr<QueueRunner<P>>> runners;
  std::vector<QueueRunner<P>*> runner_ptrs;
  for (uint32_t i = 0; i < nq; ++i) {
    runners.push_back(std::make_unique<QueueRunner<P>>(*lanes[i].env, std::get<P>(policies[i]), &s.irqs()));
    runners.back()->start();
    runner_ptrs.push_back(runners.back().get());
  }
  Time start = s.clock().now();
  Time measure_from = start + sc.warmup;
  Time end = measure_from + sc.duration;
  for (auto& l : lanes) l.env->recorder().set_measure_window(measure_from, end);

  std::vector<HwQueueEnv*> envs;
  for (auto& l : lanes) envs.push_back(l.env.get());
  HwDriveEnv drive_env(s.ctrl(), envs, s.clock());
  DriveMonitor monitor(info, sc.policy.params, drive_env, shared);

  log << "running " << sc.policy.name << ": " << rw_name(job.rw) << " bs=" << job.bs << " iodepth=" << plan.iodepth
      << " queues=" << nq << " for " << sc.duration.count_ns() / 1000000 << " ms (+"
      << sc.warmup.count_ns() / 1000000 << " ms warm-up)\n"
      << std::flush;
  run_lanes<P>(lanes, runner_ptrs, shared, job, plan, measure_from, end);
  monitor.stop();
  for (auto& r : runners) r->stop();
  Time finished = s.clock().now();
  // What is still outstanding now is aborted by the teardown: the trace's inflight rows.
  for (auto& l : lanes) l.env->recorder().close_trace(finished, l.env->submitter().commands());

  std::exception_ptr error = monitor.error();
  for (auto& l : lanes)
    if (l.error && !error) error = l.error;
  uint32_t left = tear_down_queues(lanes, s, bool(error), log);
  if (error) std::rethrow_exception(error);

  facts.interrupted = o.stop && o.stop->load();
  facts.wall_ns = (finished - start).count_ns();
  facts.drive_mode = monitor.mode();
  Time measured_end = end;
  for (auto& l : lanes) measured_end = std::min(measured_end, l.stopped_at);
  facts.window = measured_end > measure_from ? measured_end - measure_from : Duration::zero();
  write_results(loaded, o, s, drive_env, lanes, policies, facts, log);
  if (!o.trace_path.empty()) write_trace(o.trace_path, lanes, drive_env.modes());
  if (facts.interrupted) {
    log << "interrupted: stopped submitting, " << (left ? "inflight commands aborted" : "inflight commands finished")
        << "\n";
    return exit_code::kInterrupted;
  }
  uint64_t errors = 0;
  for (auto& l : lanes) errors += l.env->recorder().errors();
  return errors ? exit_code::kError : exit_code::kOk;
}
}  // namespace

int run_on_device(const LoadedScenario& loaded, const HwRunOptions& o, std::ostream& log) {
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
  // Which queues run the policy: the simulator's rule (policies/queue_eligibility.h).
  // Vector 0 is the admin queue's, 1..nq the I/O queues' (only the admin's when the
  // policy polls); no interrupt here is threaded.
  const policy::PolicyInfo& requested = *policy::find_policy(sc.policy.name);
  const policy::PolicyInfo& info =
      queue_policy(requested, VectorShape{requested.uses_vector ? nq + 1 : 1, /*threaded=*/false});
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
