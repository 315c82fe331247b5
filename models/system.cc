#include "models/system.h"

#include <algorithm>
#include <cassert>

#include "models/sim_drive_env.h"
#include "models/sim_queue_env.h"

namespace nvmesim {
namespace {
constexpr std::size_t kTimelineCap = 100000;  // per queue; beyond it entries are counted, not kept
constexpr Duration kProgressStep = Duration::ms(1);
}  // namespace

// ---- SimQueueEnv -----------------------------------------------------------------

Time SimQueueEnv::now() const { return sys_->eq_.now(); }

// Like nvme_poll_cq, the loop goes on while it finds CQEs, including those the device
// posts while the loop runs: at each step it asks the device whether the next CQE is
// posted by the time the loop gets there.
uint32_t SimQueueEnv::drain_budget(uint32_t budget) {
  HostQueue& q = *q_;
  const HostProfile& h = sys_->sc_.host;
  const Duration per_cqe = ctx_ == Level::hardirq ? h.irq_per_cqe : h.poll_per_cqe;
  Device& dev = *sys_->devices_[q.drive];
  Time t = now() + offset_ + cost_;
  std::size_t first = q.drained.size();
  uint32_t n = 0;
  while (n < budget && (cqe_pending() || dev.post_due(q.qid, t))) {
    const CqEntry& e = q.mem.cq[q.cq.head];
    q.drained.push_back(e.cid);
    if (sys_->cmd_trace_) sys_->trace_command(q, e.cid, t, ctx_);
    q.sq.head = e.sqhd;
    q.cq.advance();
    t += per_cqe;
    ++n;
  }
  if (n == 0) return 0;
  cost_ += per_cqe * n + h.doorbell_mmio;
  cost_ += sys_->delivery_cost(q, first);
  sys_->devices_[q.drive]->cq_doorbell(q.qid, q.cq.head);  // one CQ head doorbell per drain
  sys_->drive_inflight_add(q.drive, -static_cast<int64_t>(n));
  q.counters.completions += n;
  if (sys_->trace_) sys_->trace_queue_counters(q);
  return n;
}

bool SimQueueEnv::poll_check() {
  cost_ += sys_->sc_.host.poll_empty_check;
  return cqe_pending();
}

void SimQueueEnv::mask_vector() {
  cost_ += sys_->sc_.host.irq_disable;
  ++q_->counters.masks;
  q_->irq_disabled = true;  // lazy: the MSI-X entry is masked only if an interrupt comes
}

void SimQueueEnv::unmask_vector() {
  HostQueue& q = *q_;
  cost_ += sys_->sc_.host.irq_enable;
  ++q.counters.unmasks;
  q.irq_disabled = false;
  if (q.irq_replay) {
    // The interrupt caught while disabled is resent (check_irq_resend).
    q.irq_replay = false;
    sys_->eq_.schedule_in(sys_->sc_.drives[q.drive].profile.msix_delivery, &System::on_irq_arrival,
                          sys_, q.index);
  }
  if (q.irq_hw_masked) {
    q.irq_hw_masked = false;
    sys_->devices_[q.drive]->set_vector_masked(q.qid, false);  // sends if the pending bit is set
  }
}

void SimQueueEnv::wake_thread() {
  HostQueue& q = *q_;
  cost_ += sys_->sc_.host.wakeup;
  ++q.counters.thread_wakeups;
  if (q.thread_parking) {
    q.thread_rewake = true;  // a wake-up between the decision to park and the switch-out
    return;
  }
  if (!q.thread_parked) return;  // running or in fsleep: nothing to wake
  q.thread_parked = false;
  q.thread.woken = true;
  sys_->cores_[q.core]->make_runnable(q.thread);
}

void SimQueueEnv::arm_timer(Duration d) {
  HostQueue& q = *q_;
  cost_ += sys_->sc_.host.hrtimer_arm;
  ++q.timer_gen;
  sys_->eq_.schedule_in(max(d, Duration::zero()), &System::on_timer, sys_,
                        (static_cast<uint64_t>(q.index) << 32) | (q.timer_gen & 0xffffffffu));
}

void SimQueueEnv::mode_change(std::string_view from, std::string_view to, std::string reason) {
  HostQueue& q = *q_;
  ++q.counters.mode_changes;
  if (sys_->trace_) sys_->trace_mode(q, from);
  if (sys_->cmd_trace_)
    sys_->cmd_trace_->add(now(), trace::ModeRecord{q.qid + 1, now(), std::string(from), std::string(to), reason});
  if (q.timeline.size() >= kTimelineCap) {
    ++q.timeline_dropped;
    return;
  }
  q.timeline.push_back(ModeChange{now(), std::string(from), std::string(to), std::move(reason)});
}

// ---- SimDriveEnv -----------------------------------------------------------------

Time SimDriveEnv::now() const { return sys_->eq_.now(); }

uint64_t SimDriveEnv::completions_total() const {
  uint64_t n = 0;
  for (uint32_t gq : sys_->drive_queues_[drive_]) n += sys_->queues_[gq]->counters.completions;
  return n;
}

uint64_t SimDriveEnv::inflight_total() const { return static_cast<uint64_t>(sys_->drive_inflight_[drive_]); }

double SimDriveEnv::inflight_integral() const {
  sys_->drive_inflight_add(drive_, 0);  // bring the integral up to now
  return sys_->drive_integral_[drive_];
}

uint32_t SimDriveEnv::io_queue_count() const { return static_cast<uint32_t>(sys_->drive_queues_[drive_].size()); }

void SimDriveEnv::set_coalescing(uint32_t thr, uint32_t time_100us) {
  cost_ += sys_->sc_.host.admin_submit;  // the CPU side of the Set Features admin command
  sys_->devices_[drive_]->admin_set_coalescing(thr, time_100us);
}

void SimDriveEnv::mode_change(std::string_view from, std::string_view to, std::string reason) {
  if (sys_->cmd_trace_)
    sys_->cmd_trace_->add(now(), trace::ModeRecord{0, now(), std::string(from), std::string(to), reason});
  auto& tl = sys_->drive_timeline_[drive_];
  if (tl.size() < kTimelineCap) tl.push_back(ModeChange{now(), std::string(from), std::string(to), std::move(reason)});
}

// ---- construction ------------------------------------------------------------------

System::System(const Scenario& scenario) : sc_(scenario) { build(); }
System::~System() = default;

void System::build() {
  const uint32_t ncores = sc_.host.cores;
  CoreOwner owner{this, &System::begin_segment, &System::end_segment};
  for (uint32_t c = 0; c < ncores; ++c) cores_.push_back(std::make_unique<Core>(eq_, owner, c));
  softirq_tasks_.resize(ncores);
  softirq_work_.resize(ncores);
  for (uint32_t c = 0; c < ncores; ++c) softirq_tasks_[c] = Task::make(Level::softirq, TaskKind::softirq, c, c);

  // Requests first: the pool must not move once devices hold a reference to it.
  uint32_t total_reqs = 0;
  for (const auto& js : sc_.jobs) total_reqs += js.iodepth * js.numjobs;
  requests_.resize(total_reqs);

  const policy::PolicyInfo* info = policy::find_policy(sc_.policy.name);
  assert(info && "the loader validates the policy name");
  const policy::ParamMap& params = sc_.policy.params;
  const policy::PolicyInfo* fallback = policy::find_policy("irq");

  MsixSink sink{this, &System::on_msix};
  for (uint32_t d = 0; d < sc_.drives.size(); ++d) {
    const DeviceProfile& prof = sc_.drives[d].profile;
    devices_.push_back(std::make_unique<Device>(eq_, prof, d, sc_.seed, sink, requests_));
    uint32_t nq = std::min(sc_.io_queues ? sc_.io_queues : ncores, prof.max_io_queues);
    uint32_t depth = std::min(sc_.queue_depth, prof.max_queue_depth);
    // The kernel spreads cores evenly over queues: core c uses queue c * nq / ncores.
    core_queue_.emplace_back(ncores);
    drive_queues_.emplace_back();
    // Eligibility: more than one vector and no threaded interrupts (policies.md).
    bool dedicated = nq > 1;
    for (uint32_t qid = 0; qid < nq; ++qid) {
      const policy::PolicyInfo* use = info;
      if (info->eligibility == policy::Eligibility::dedicated_vector && !dedicated) use = fallback;
      auto q = std::make_unique<HostQueue>(depth, use->make(params));
      q->index = static_cast<uint32_t>(queues_.size());
      q->drive = d;
      q->qid = qid;
      q->polled = !use->uses_vector;
      q->core = UINT32_MAX;
      q->rng = sim::Rng(sc_.seed, sim::stream_key("queue", d, qid));
      q->hardirq = Task::make(Level::hardirq, TaskKind::hardirq, q->index, 0);
      q->thread = Task::make(Level::irq_thread, TaskKind::irq_thread, q->index, 0);
      devices_[d]->add_queue(&q->mem, depth, qid, !q->polled);
      drive_queues_[d].push_back(q->index);
      queues_.push_back(std::move(q));
    }
    for (uint32_t c = 0; c < ncores; ++c) {
      uint32_t qid = static_cast<uint32_t>(static_cast<uint64_t>(c) * nq / ncores);
      HostQueue& q = *queues_[drive_queues_[d][qid]];
      core_queue_[d][c] = q.index;
      if (q.core == UINT32_MAX) q.core = c;  // the vector's affinity: first core of its mask
    }
    for (uint32_t gq : drive_queues_[d]) {
      HostQueue& q = *queues_[gq];
      if (q.core == UINT32_MAX) q.core = q.qid % ncores;  // more queues than cores
      q.hardirq.core = q.thread.core = q.core;
    }
    drive_policy_.emplace_back();
    if (info->per_drive()) drive_policy_.back().emplace(info->make_drive(params));
    if (info->static_coalescing) {
      policy::Coalescing c = info->static_coalescing(params);
      devices_[d]->admin_set_coalescing(c.thr, c.time_100us);
    }
  }

  // Jobs: numjobs clones each, pinned in order to cpus_allowed (or to the next cores).
  uint32_t next_core = 0, next_req = 0;
  for (uint32_t s = 0; s < sc_.jobs.size(); ++s) {
    const JobSpec& js = sc_.jobs[s];
    for (uint32_t i = 0; i < js.numjobs; ++i) {
      Job j;
      j.spec = &js;
      j.index = static_cast<uint32_t>(jobs_.size());
      j.spec_index = s;
      j.clone = i;
      j.core = js.cpus_allowed.empty() ? next_core++ % ncores
                                       : js.cpus_allowed[i % js.cpus_allowed.size()];
      j.costs = js.ioengine == IoEngine::libaio ? sc_.host.libaio : sc_.host.io_uring;
      j.polls = info->app_polls;
      for (uint32_t d : js.drives) j.queues.push_back(core_queue_[d][j.core]);
      for (uint32_t r = 0; r < js.iodepth; ++r) {
        requests_[next_req].job = j.index;
        j.free_reqs.push_back(next_req++);
      }
      std::reverse(j.free_reqs.begin(), j.free_reqs.end());
      j.task = Task::make(Level::app, TaskKind::app, j.index, j.core);
      j.rng = sim::Rng(sc_.seed, sim::stream_key("job", s, i));
      j.latency.resize(js.drives.size());
      j.ios.assign(js.drives.size(), 0);
      j.bytes.assign(js.drives.size(), 0);
      if (js.rate_iops > 0) j.mean_gap = Duration::ns(static_cast<int64_t>(1e9 / js.rate_iops));
      jobs_.push_back(std::move(j));
    }
  }
  lazy_masked_.assign(queues_.size(), 0);
  drive_timeline_.resize(devices_.size());
  drive_inflight_.assign(devices_.size(), 0);
  drive_integral_.assign(devices_.size(), 0.0);
  drive_integral_at_.assign(devices_.size(), Time::zero());
}

void System::drive_inflight_add(uint32_t d, int64_t delta) {
  Time now = eq_.now();
  drive_integral_[d] += static_cast<double>(drive_inflight_[d]) * static_cast<double>((now - drive_integral_at_[d]).count_ns());
  drive_integral_at_[d] = now;
  drive_inflight_[d] += delta;
}

std::string System::drive_mode(uint32_t d) const {
  return drive_policy_[d] ? std::string(policy::drive_policy_mode(*drive_policy_[d])) : std::string();
}

void System::on_monitor(void* self, uint64_t d) {
  auto* s = static_cast<System*>(self);
  // The monitor runs as deferred work on the core of the drive's first queue.
  uint32_t core = s->queues_[s->drive_queues_[d][0]]->core;
  s->softirq_work_[core].push_back(kMonitorWork | static_cast<uint32_t>(d));
  s->cores_[core]->make_runnable(s->softirq_tasks_[core]);
}

// ---- running -------------------------------------------------------------------------

void System::run(const std::function<void(double)>& progress) {
  window_start_ = Time::zero() + sc_.warmup;
  window_end_ = window_start_ + sc_.duration;
  for (Job& j : jobs_) {
    if (j.mean_gap > Duration::zero())
      eq_.schedule(Time::zero(), &System::on_arrival, this, j.index);
    else
      cores_[j.core]->make_runnable(j.task);
  }
  for (uint32_t d = 0; d < drive_policy_.size(); ++d)
    if (drive_policy_[d]) eq_.schedule(Time::zero(), &System::on_monitor, this, d);
  if (sc_.warmup == Duration::zero()) start_window();
  else eq_.schedule(window_start_, &System::on_window_start, this, 0);

  if (!progress) {
    eq_.run_until(window_end_);
  } else {
    Duration total = window_end_ - Time::zero();
    for (Time t = Time::zero() + kProgressStep; ; t += kProgressStep) {
      Time stop = min(t, window_end_);
      eq_.run_until(stop);
      progress(static_cast<double>(stop.ns()) / static_cast<double>(total.count_ns()));
      if (stop == window_end_) break;
    }
  }
  finish_window();
  if (trace_)
    for (auto& q : queues_) trace_mode(*q, std::visit([](const auto& p) { return p.mode(); }, q->policy));
}

// ---- tracing -----------------------------------------------------------------------------

void System::enable_trace(sim::TraceRecorder* trace) {
  trace_ = trace;
  mode_since_.assign(queues_.size(), Time::zero());
  trace->name_process(1, "cores");
  trace->name_process(2, "queues (mode)");
  for (uint32_t c = 0; c < cores_.size(); ++c) {
    trace->name_track(1, c, "cpu" + std::to_string(c));
    cores_[c]->set_tracer(&System::on_ran);
  }
  for (const auto& q : queues_) trace->name_track(2, q->index, queue_label(*q) + " (cpu" + std::to_string(q->core) + ")");
}

std::string System::queue_label(const HostQueue& q) const {
  return sc_.drives[q.drive].name + "q" + std::to_string(q.qid + 1);
}

void System::on_ran(void* self, const Task& t, Time start, Time end) {
  auto* s = static_cast<System*>(self);
  if (!s->trace_->wants(start, end)) return;
  std::string name;
  const char* cat = "app";
  switch (t.kind) {
    case TaskKind::app: {
      const Job& j = s->jobs_[t.index];
      static constexpr const char* kSeg[] = {"", "submit", "reap", "wait", "poll", "idle"};
      name = j.spec->name + "#" + std::to_string(j.clone) + " " + kSeg[static_cast<int>(j.seg)];
      break;
    }
    case TaskKind::hardirq:
      name = "irq " + s->queue_label(*s->queues_[t.index]);
      cat = "hardirq";
      break;
    case TaskKind::softirq: {
      uint32_t item = s->softirq_work_[t.index].empty() ? 0 : s->softirq_work_[t.index].front();
      name = item & kMonitorWork ? "monitor " + s->sc_.drives[item & ~kMonitorWork].name
                                 : "timer/irq_poll " + s->queue_label(*s->queues_[item]);
      cat = "softirq";
      break;
    }
    case TaskKind::irq_thread:
      name = "irq/" + s->queue_label(*s->queues_[t.index]);
      cat = "irq_thread";
      break;
  }
  s->trace_->slice(1, t.core, start, end, name, cat);
}

void System::trace_queue_counters(const HostQueue& q) {
  Time now = eq_.now();
  if (!trace_->wants(now)) return;
  std::string label = queue_label(q);
  trace_->counter(2, label + " inflight", now, "inflight", nvme::driver_inflight(q.sq, q.cq));
  trace_->counter(2, label + " cq", now, "cqes", devices_[q.drive]->cq_pending(q.qid, q.cq.head));
}

void System::trace_command(const HostQueue& q, uint32_t cid, Time seen, Level ctx) {
  const Request& r = requests_[cid];
  trace::CommandRecord c;
  c.queue = q.qid + 1;
  c.cid = cid;
  c.op = r.write ? trace::Op::write : trace::Op::read;
  c.lba = 0;  // the model has no addresses
  c.blocks = r.bytes / 512;
  c.submit = r.submitted;
  c.doorbell = r.doorbell;
  c.cqe_posted = r.posted;
  c.cqe_seen = seen;
  if (ctx == Level::hardirq) c.irq = eq_.now();
  c.completed_by = ctx == Level::hardirq ? trace::Context::irq
                 : ctx == Level::irq_thread ? trace::Context::thread
                 : ctx == Level::softirq ? trace::Context::timer : trace::Context::app;
  cmd_trace_->add(seen, c);
}

void System::trace_mode(HostQueue& q, std::string_view mode) {
  Time now = eq_.now();
  trace_->slice(2, q.index, mode_since_[q.index], now, std::string(mode), "mode");
  mode_since_[q.index] = now;
}

void System::on_window_start(void* self, uint64_t) { static_cast<System*>(self)->start_window(); }

void System::start_window() {
  measuring_ = true;
  core_at_start_.resize(cores_.size());
  for (std::size_t c = 0; c < cores_.size(); ++c) {
    cores_[c]->flush_accounting();
    for (int l = 0; l < kLevels; ++l) core_at_start_[c].busy[l] = cores_[c]->busy(static_cast<Level>(l));
  }
  counters_at_start_.clear();
  for (const auto& q : queues_) counters_at_start_.push_back(q->counters);
  lazy_masked_at_start_ = lazy_masked_;
  device_at_start_.clear();
  for (const auto& d : devices_) device_at_start_.push_back(d->stats());
}

void System::finish_window() {
  measuring_ = false;
  core_at_end_.resize(cores_.size());
  for (std::size_t c = 0; c < cores_.size(); ++c) {
    cores_[c]->flush_accounting();
    for (int l = 0; l < kLevels; ++l) core_at_end_[c].busy[l] = cores_[c]->busy(static_cast<Level>(l));
  }
}

policy::QueueCounters System::queue_counters(uint32_t qi) const {
  return queues_[qi]->counters - counters_at_start_[qi];
}

DeviceStats System::device_stats(uint32_t d) const { return devices_[d]->stats() - device_at_start_[d]; }

CoreTimes System::core_times(uint32_t c) const {
  CoreTimes t;
  for (int l = 0; l < kLevels; ++l) t.busy[l] = core_at_end_[c].busy[l] - core_at_start_[c].busy[l];
  return t;
}

// ---- CPU segments --------------------------------------------------------------------

Duration System::begin_segment(void* self, Task& t) {
  auto* s = static_cast<System*>(self);
  switch (t.kind) {
    case TaskKind::app: return s->begin_app(s->jobs_[t.index]);
    case TaskKind::hardirq: return s->begin_hardirq(*s->queues_[t.index]);
    case TaskKind::softirq: return s->begin_softirq(t.index);
    case TaskKind::irq_thread: return s->begin_thread(*s->queues_[t.index]);
  }
  return Duration::zero();
}

bool System::end_segment(void* self, Task& t) {
  auto* s = static_cast<System*>(self);
  switch (t.kind) {
    case TaskKind::app: return s->end_app(s->jobs_[t.index]);
    case TaskKind::hardirq: return s->end_hardirq(*s->queues_[t.index]);
    case TaskKind::softirq: return s->end_softirq(t.index);
    case TaskKind::irq_thread: return s->end_thread(*s->queues_[t.index]);
  }
  return false;
}

// The job's next step, fio's loop: submit while there is room (in batches), then wait
// for at least iodepth_batch_complete_min completions and reap up to _max.
Duration System::begin_app(Job& j) {
  const JobSpec& js = *j.spec;
  const HostProfile& h = sc_.host;
  Duration cost;
  if (j.task.woken) {
    cost += h.context_switch;
    j.task.woken = false;
  }
  bool in_syscall = j.in_syscall;
  j.in_syscall = false;

  uint64_t room = js.iodepth - j.inflight;
  if (j.mean_gap > Duration::zero()) room = std::min<uint64_t>(room, j.backlog);
  uint32_t k = 0, doorbells = 0;
  if (room > 0) {
    auto want = static_cast<uint32_t>(std::min<uint64_t>(room, js.iodepth_batch_submit));
    Time now = eq_.now();
    for (; k < want; ++k) {
      uint32_t slot = j.next_target % static_cast<uint32_t>(j.queues.size());
      HostQueue& q = *queues_[j.queues[slot]];
      if (q.sq.full()) break;  // out of tags: wait for completions
      ++j.next_target;
      uint32_t rid = j.free_reqs.back();
      j.free_reqs.pop_back();
      Request& r = requests_[rid];
      r.submitted = now;
      r.queue = q.index;
      r.qid = q.qid;
      r.bytes = js.bs;
      switch (js.rw) {
        case RwMode::randread: case RwMode::read: r.write = false; break;
        case RwMode::randwrite: case RwMode::write: r.write = true; break;
        case RwMode::randrw: case RwMode::rw: r.write = j.rng.below(100) >= js.rwmixread; break;
      }
      if (!q.sq.doorbell_needed()) ++doorbells;  // first SQE for this queue in the batch
      q.mem.sq[q.sq.push()] = rid;
      ++q.submitted;
    }
    if (k > 0) {
      j.inflight += k;
      if (j.mean_gap > Duration::zero()) j.backlog -= k;
      j.seg = Job::Segment::submit;
      j.seg_count = k;
      bool shares = in_syscall && js.ioengine == IoEngine::io_uring;
      cost += (shares ? Duration::zero() : j.costs.syscall) + j.costs.submit_per_io * k +
              h.doorbell_mmio * doorbells;
      return cost;
    }
  }

  if (j.inflight == 0) {  // open loop with nothing to do: sleep until the next arrival
    j.seg = Job::Segment::idle_wait;
    return cost;
  }
  uint32_t need = std::max<uint32_t>(1, std::min(js.iodepth_batch_complete_min, j.inflight));
  if (j.ready.size() >= need) {
    uint32_t cmax = js.iodepth_batch_complete_max ? js.iodepth_batch_complete_max : js.iodepth;
    k = static_cast<uint32_t>(std::min<std::size_t>(j.ready.size(), cmax));
    j.seg = Job::Segment::reap;
    j.seg_count = k;
    // io_uring reaps from the shared ring; libaio needs io_getevents unless this is the
    // same call that slept.
    bool syscall = js.ioengine == IoEngine::libaio && !in_syscall;
    cost += (syscall ? j.costs.syscall : Duration::zero()) + j.costs.reap_per_io * k;
    return cost;
  }
  if (j.polls) {
    // One pass of the IOPOLL loop over the job's queues, inside io_uring_enter.
    j.seg = Job::Segment::poll;
    if (!in_syscall) cost += j.costs.syscall;
    for (uint32_t gq : j.queues) {
      HostQueue& q = *queues_[gq];
      SimQueueEnv env(*this, q, Level::app);
      std::visit([&](auto& p) { p.on_app_poll(env); }, q.policy);
      cost += env.cost();
    }
    return cost;
  }
  j.seg = Job::Segment::block;
  j.wait_need = need;
  bool shares = in_syscall && js.ioengine == IoEngine::io_uring;
  cost += shares ? Duration::zero() : j.costs.syscall;
  return cost;
}

bool System::end_app(Job& j) {
  switch (j.seg) {
    case Job::Segment::submit:
      for (uint32_t gq : j.queues) {
        HostQueue& q = *queues_[gq];
        if (!q.sq.doorbell_needed()) continue;
        for (uint32_t i = q.sq.db_tail; i != q.sq.tail; i = i + 1 == q.sq.depth ? 0 : i + 1)
          requests_[q.mem.sq[i]].doorbell = eq_.now();
        drive_inflight_add(q.drive, nvme::ring_distance(q.sq.db_tail, q.sq.tail, q.sq.depth));
        devices_[q.drive]->sq_doorbell(q.qid, q.sq.ring_doorbell());
        if (trace_) trace_queue_counters(q);
      }
      j.in_syscall = j.spec->ioengine == IoEngine::io_uring;
      return true;
    case Job::Segment::reap: {
      Time now = eq_.now();
      bool count = measuring_ && now <= window_end_;
      for (uint32_t i = 0; i < j.seg_count; ++i) {
        uint32_t rid = j.ready.front();
        j.ready.pop_front();
        const Request& r = requests_[rid];
        if (count) {
          std::size_t slot = 0;
          while (j.queues[slot] != r.queue) ++slot;
          j.latency[slot].record((now - r.submitted).count_ns());
          ++j.ios[slot];
          j.bytes[slot] += r.bytes;
        }
        j.free_reqs.push_back(rid);
      }
      j.inflight -= j.seg_count;
      return true;
    }
    case Job::Segment::poll:
      for (uint32_t gq : j.queues) deliver(*queues_[gq]);
      j.in_syscall = true;
      return true;
    case Job::Segment::block:
      j.in_syscall = true;
      if (j.ready.size() >= j.wait_need) return true;  // completions came during the call
      j.blocked = true;
      return false;
    case Job::Segment::idle_wait:
      if (j.backlog > 0) return true;
      j.blocked = true;
      j.wait_need = 0;
      return false;
    case Job::Segment::none:
      break;
  }
  return false;
}

Duration System::delivery_cost(const HostQueue& q, std::size_t first) const {
  Duration cost;
  for (std::size_t i = first; i < q.drained.size(); ++i) {
    const Job& j = jobs_[requests_[q.drained[i]].job];
    cost += j.costs.post_per_io;
  }
  // A blocked job whose wait these completions satisfy is woken by the drainer.
  for (std::size_t i = first; i < q.drained.size(); ++i) {
    const Job& j = jobs_[requests_[q.drained[i]].job];
    if (j.blocked && j.wait_need > 0 && j.ready.size() + (q.drained.size() - first) >= j.wait_need) {
      cost += sc_.host.wakeup;
      break;
    }
  }
  return cost;
}

void System::deliver(HostQueue& q) {
  for (uint32_t rid : q.drained) jobs_[requests_[rid].job].ready.push_back(rid);
  for (uint32_t rid : q.drained) {
    Job& j = jobs_[requests_[rid].job];
    if (j.blocked && j.wait_need > 0 && j.ready.size() >= j.wait_need) wake_job(j);
  }
  q.drained.clear();
}

void System::wake_job(Job& j) {
  j.blocked = false;
  j.task.woken = true;
  cores_[j.core]->make_runnable(j.task);
}

void System::on_arrival(void* self, uint64_t ji) {
  auto* s = static_cast<System*>(self);
  Job& j = s->jobs_[ji];
  ++j.backlog;
  Duration gap = j.spec->rate_process == RateProcess::poisson
                     ? Duration::ns(static_cast<int64_t>(j.rng.exponential(static_cast<double>(j.mean_gap.count_ns()))))
                     : j.mean_gap;
  s->eq_.schedule_in(gap, &System::on_arrival, s, ji);
  if (j.blocked && j.inflight < j.spec->iodepth) {
    j.blocked = false;
    s->cores_[j.core]->make_runnable(j.task);
  } else if (!j.task.queued) {
    s->cores_[j.core]->make_runnable(j.task);
  }
}

// ---- interrupts ------------------------------------------------------------------------

void System::on_msix(void* self, uint32_t drive, uint32_t vector) {
  auto* s = static_cast<System*>(self);
  uint32_t gq = s->drive_queues_[drive][vector];
  s->eq_.schedule_in(s->sc_.drives[drive].profile.msix_delivery, &System::on_irq_arrival, s, gq);
}

void System::on_irq_arrival(void* self, uint64_t gq) {
  auto* s = static_cast<System*>(self);
  HostQueue& q = *s->queues_[gq];
  Core& core = *s->cores_[q.core];
  if (core.running() == &q.hardirq) {
    q.apic_pending = true;  // latched in the local APIC, runs again after EOI
  } else if (!q.hardirq.queued) {
    core.make_runnable(q.hardirq);
  }  // else already waiting to run: the two messages merge
}

Duration System::begin_hardirq(HostQueue& q) {
  const HostProfile& h = sc_.host;
  Duration cost = h.irq_entry + h.irq_exit;
  if (q.irq_disabled) {
    // disable_irq_nosync was called: the flow handler masks the entry and marks the
    // interrupt for replay, without running the handler.
    cost += h.lazy_mask;
    ++lazy_masked_[q.index];
    if (cmd_trace_) cmd_trace_->add(eq_.now(), trace::IrqRecord{q.qid + 1, eq_.now(), 0, true});
    q.irq_replay = true;
    if (!q.irq_hw_masked) {
      q.irq_hw_masked = true;
      devices_[q.drive]->set_vector_masked(q.qid, true);
    }
    return cost;
  }
  SimQueueEnv env(*this, q, Level::hardirq, h.irq_entry);
  std::size_t before = q.drained.size();
  std::visit([&](auto& p) { p.on_interrupt(env); }, q.policy);
  if (cmd_trace_)
    cmd_trace_->add(eq_.now(), trace::IrqRecord{q.qid + 1, eq_.now(), static_cast<uint32_t>(q.drained.size() - before), false});
  return cost + env.cost();
}

bool System::end_hardirq(HostQueue& q) {
  deliver(q);
  if (q.apic_pending) {
    q.apic_pending = false;
    return true;
  }
  return false;
}

// ---- softirq: hrtimer expiries that run a policy's on_timer (irq_poll) --------------------

void System::on_timer(void* self, uint64_t arg) {
  auto* s = static_cast<System*>(self);
  auto gq = static_cast<uint32_t>(arg >> 32);
  HostQueue& q = *s->queues_[gq];
  if ((arg & 0xffffffffu) != (q.timer_gen & 0xffffffffu)) return;  // cancelled or re-armed
  s->softirq_work_[q.core].push_back(gq);
  s->cores_[q.core]->make_runnable(s->softirq_tasks_[q.core]);
}

Duration System::begin_softirq(uint32_t core) {
  const HostProfile& h = sc_.host;
  uint32_t item = softirq_work_[core].front();
  if (item & kMonitorWork) {
    uint32_t d = item & ~kMonitorWork;
    SimDriveEnv env(*this, d);
    Duration next = std::visit([&](auto& p) { return p.on_monitor(env); }, *drive_policy_[d]);
    eq_.schedule_in(next, &System::on_monitor, this, d);
    return h.hrtimer_expiry + env.cost();
  }
  uint32_t gq = item;
  HostQueue& q = *queues_[gq];
  SimQueueEnv env(*this, q, Level::softirq, h.hrtimer_expiry + h.softirq_entry);
  ++q.counters.timer_expiries;
  policy::TimerStep step = std::visit([&](auto& p) { return p.on_timer(env); }, q.policy);
  if (step.rearm) env.arm_timer(step.period);
  return h.hrtimer_expiry + h.softirq_entry + env.cost();
}

bool System::end_softirq(uint32_t core) {
  uint32_t item = softirq_work_[core].front();
  softirq_work_[core].pop_front();
  if (!(item & kMonitorWork)) deliver(*queues_[item]);
  return !softirq_work_[core].empty();
}

// ---- IRQ threads -------------------------------------------------------------------------

Duration System::begin_thread(HostQueue& q) {
  const HostProfile& h = sc_.host;
  Duration cost;
  if (q.thread.woken) {
    cost += h.context_switch;
    q.thread.woken = false;
  }
  if (q.thread_busy_wait > Duration::zero()) {
    // fsleep of 10 us or less: udelay, the core stays busy in this thread.
    cost += q.thread_busy_wait;
    q.thread_busy_wait = Duration::zero();
    q.thread_step = policy::ThreadStep::resched();
    q.thread_step_is_wait = true;
    return cost;
  }
  SimQueueEnv env(*this, q, Level::irq_thread);
  q.thread_step = std::visit([&](auto& p) { return p.on_thread(env); }, q.policy);
  q.thread_step_is_wait = false;
  q.thread_parking = q.thread_step.kind == policy::ThreadStep::Kind::park;
  if (q.thread_step.kind == policy::ThreadStep::Kind::resched) env.add_cost(h.cond_resched);
  return cost + env.cost();
}

bool System::end_thread(HostQueue& q) {
  deliver(q);
  if (q.thread_step_is_wait) return true;
  const HostProfile& h = sc_.host;
  switch (q.thread_step.kind) {
    case policy::ThreadStep::Kind::park:
      q.thread_parking = false;
      if (q.thread_rewake) {
        q.thread_rewake = false;
        return true;
      }
      q.thread_parked = true;
      return false;
    case policy::ThreadStep::Kind::resched:
      return true;
    case policy::ThreadStep::Kind::sleep: {
      ++q.counters.sleeps;
      Duration d = q.thread_step.duration;
      if (d <= h.fsleep_busy_max) {
        q.thread_busy_wait = d;
        return true;
      }
      // usleep_range(d, d + d * slack%): the hrtimer fires somewhere in the range
      // (uniformly, an assumption), then the thread is scheduled.
      int64_t slack = d.count_ns() * h.fsleep_slack_pct / 100;
      Duration wake = d + Duration::ns(static_cast<int64_t>(q.rng.uniform() * static_cast<double>(slack))) +
                      h.timer_slack_min + h.wakeup_latency;
      eq_.schedule_in(wake, &System::on_thread_wake, this,
                      (static_cast<uint64_t>(q.index) << 32) | (++q.thread_sleep_gen & 0xffffffffu));
      return false;
    }
  }
  return false;
}

void System::on_thread_wake(void* self, uint64_t arg) {
  auto* s = static_cast<System*>(self);
  HostQueue& q = *s->queues_[arg >> 32];
  if ((arg & 0xffffffffu) != (q.thread_sleep_gen & 0xffffffffu)) return;
  q.thread.woken = true;
  s->cores_[q.core]->make_runnable(q.thread);
}

}  // namespace nvmesim
