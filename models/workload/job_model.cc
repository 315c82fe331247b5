#include "models/workload/job_model.h"

#include <algorithm>
#include <variant>

#include "models/workload/empty_poll_fold.h"

namespace nvmesim {
namespace {

// The completions a reaping job waits for: its batch minimum, at least one, at most all
// it has in flight.
uint32_t completions_to_wait_for(const Job& j) {
  return std::max<uint32_t>(1, std::min(j.spec->iodepth_batch_complete_min, j.inflight));
}

// Starts a reap segment of what is ready, up to the batch maximum (0: the depth); returns
// its per-I/O cost.
Duration start_reap(Job& j) {
  const JobSpec& js = *j.spec;
  const uint32_t cmax = js.iodepth_batch_complete_max ? js.iodepth_batch_complete_max : js.iodepth;
  j.seg = Job::Segment::reap;
  j.seg_count = static_cast<uint32_t>(std::min<std::size_t>(j.ready.size(), cmax));
  return j.costs.reap_per_io * j.seg_count;
}

}  // namespace

void JobModel::build(const Topology& topology, bool app_polls) {
  const Scenario& sc = *m_.scenario;
  std::vector<Job>& jobs = *m_.jobs;
  uint32_t next_req = 0;
  for (const Topology::JobClone& placed : topology.jobs()) {
    const JobSpec& js = sc.jobs[placed.spec];
    Job j;
    j.spec = &js;
    j.index = static_cast<uint32_t>(jobs.size());
    j.spec_index = placed.spec;
    j.clone = placed.clone;
    j.core = placed.core;
    j.costs = js.ioengine == IoEngine::libaio ? sc.host.libaio : sc.host.io_uring;
    if (js.completion) j.costs.posting = *js.completion;
    j.polls = app_polls;
    j.queues = placed.queues;
    for (uint32_t r = 0; r < js.iodepth; ++r) {
      (*m_.requests)[next_req].job = j.index;
      j.free_reqs.push_back(next_req++);
    }
    std::reverse(j.free_reqs.begin(), j.free_reqs.end());
    j.task = Task::make(Context::app, j.index, j.core);
    j.rng = sim::Rng(sc.seed, sim::stream_key("job", placed.spec, placed.clone));
    j.latency.resize(2 * js.drives.size());
    j.ios.assign(js.drives.size(), 0);
    j.bytes.assign(js.drives.size(), 0);
    if (js.rate_iops > 0) j.mean_gap = Duration::ns(static_cast<int64_t>(1e9 / js.rate_iops));
    jobs.push_back(std::move(j));
  }
  mark_folding();
  mark_submitters();
  if (!m_.replay) return;
  for (Job& j : jobs) j.replays = true;
  const auto& cmds = m_.replay->commands;
  for (uint32_t c = 0; c < cmds.size(); ++c) jobs[cmds[c].job].replay_commands.push_back(c);
}

// A job may fold its empty polling passes when nothing but itself can ever run on its core
// or touch its CQs: every queue it uses is polled by the poll policy and used by no other
// job, no other job shares its core, no queue's interrupt lands there and no drive policy
// runs (its monitors take cores and timers). Replays are left alone: a replayed command's
// posting comes from its trace, not from a unit and the CQE post delay. The whole machine
// is looked at, so a partition's System decides the same as the whole machine's.
void JobModel::mark_folding() {
  std::vector<Job>& jobs = *m_.jobs;
  const auto& queues = *m_.queues;
  if (m_.replay) return;
  for (const HostDrive& d : *m_.drives)
    if (d.policy) return;
  const auto ncores = static_cast<uint32_t>(m_.cores->size());
  std::vector<uint32_t> jobs_on_core(ncores, 0), users(queues.size(), 0);
  std::vector<bool> vector_on_core(ncores, false);
  for (const Job& j : jobs) {
    ++jobs_on_core[j.core];
    for (uint32_t gq : j.queues) ++users[gq];
  }
  for (const auto& q : queues)
    if (!q->polled) vector_on_core[q->core] = true;
  for (Job& j : jobs) {
    bool ok = j.polls && jobs_on_core[j.core] == 1 && !vector_on_core[j.core] && !j.queues.empty();
    for (uint32_t gq : j.queues)
      ok = ok && users[gq] == 1 && std::holds_alternative<policy::PollPolicy>(queues[gq]->policy);
    j.folds_empty_polls = ok;
  }
}

void JobModel::start(std::span<const uint32_t> jobs) {
  for (uint32_t ji : jobs) {
    Job& j = (*m_.jobs)[ji];
    if (j.replays) {
      if (!j.replay_commands.empty())
        m_.eq->schedule(m_.replay->commands[j.replay_commands[0]].submit, &JobModel::on_replay_arrival, this,
                        j.index);
    } else if (j.mean_gap > Duration::zero())
      m_.eq->schedule(Time::zero(), &JobModel::on_arrival, this, j.index);
    else
      (*m_.cores)[j.core]->make_runnable(j.task);
  }
}

void JobModel::on_arrival(void* self, uint64_t ji) {
  auto* m = static_cast<JobModel*>(self);
  Job& j = (*m->m_.jobs)[ji];
  ++j.backlog;
  Duration gap = j.spec->rate_process == RateProcess::poisson
                     ? Duration::ns(static_cast<int64_t>(j.rng.exponential(static_cast<double>(j.mean_gap.count_ns()))))
                     : j.mean_gap;
  m->m_.eq->schedule_in(gap, &JobModel::on_arrival, m, ji);
  m->arrived(j);
}

// Every command of the clone whose recorded submit time has come joins the backlog; the
// clone's next arrival is its next command's time. One event per distinct time and clone,
// scheduled at the previous one's, so it runs before a segment end at the same time.
void JobModel::on_replay_arrival(void* self, uint64_t ji) {
  auto* m = static_cast<JobModel*>(self);
  Job& j = (*m->m_.jobs)[ji];
  const auto& cmds = m->m_.replay->commands;
  const Time now = m->m_.eq->now();
  while (j.replay_arrived < j.replay_commands.size() && cmds[j.replay_commands[j.replay_arrived]].submit <= now) {
    ++j.replay_arrived;
    ++j.backlog;
  }
  if (j.replay_arrived < j.replay_commands.size())
    m->m_.eq->schedule(cmds[j.replay_commands[j.replay_arrived]].submit, &JobModel::on_replay_arrival, m, ji);
  m->arrived(j);
}

// An arrival wakes the clone unless it is already runnable.
void JobModel::arrived(Job& j) {
  Core& core = *(*m_.cores)[j.core];
  if (j.blocked && j.inflight < j.spec->iodepth) {
    j.blocked = false;
    j.in_wait = false;  // the arrival ends the wait
    core.make_runnable(j.task);
  } else if (!j.task.queued) {
    core.make_runnable(j.task);
  }
}

// Writes up to `want` SQEs round-robin over the job's queues, stopping early when a
// target queue is out of tags (HostQueue::out_of_tags); adds the submit call's cost.
// Returns how many. Every batch is a call of its own: fio commits each batch with one
// io_submit or io_uring_enter, and t/io_uring enters once per batch it prepares.
uint32_t JobModel::submit(Job& j, uint32_t want, Duration& cost) {
  const JobSpec& js = *j.spec;
  const Time now = m_.eq->now();
  uint32_t k = 0, doorbells = 0;
  for (; k < want; ++k) {
    // A replayed command goes to its recorded queue; else round robin over the targets.
    const ReplayCommand* cmd = j.replays ? &m_.replay->commands[j.replay_commands[j.replay_next]] : nullptr;
    const uint32_t gq = cmd ? cmd->queue : j.queues[j.next_target];
    HostQueue& q = *(*m_.queues)[gq];
    if (q.out_of_tags()) break;  // wait for completions
    uint32_t rid = j.free_reqs.back();
    j.free_reqs.pop_back();
    Request& r = (*m_.requests)[rid];
    r.submitted = now;
    r.queue = q.index;
    r.qid = q.qid;
    if (cmd) {
      times_[rid].command = j.replay_commands[j.replay_next++];  // a replay records them
      r.bytes = cmd->bytes;
      r.write = cmd->write;
      r.sequential = false;  // a trace says nothing of the pattern: random, as the drive assumes
    } else {
      if (++j.next_target == j.queues.size()) j.next_target = 0;
      r.bytes = js.bs;
      switch (js.rw) {
        case RwMode::randread: case RwMode::read: r.write = false; break;
        case RwMode::randwrite: case RwMode::write: r.write = true; break;
        case RwMode::randrw: case RwMode::rw: r.write = j.rng.below(100) >= js.rwmixread; break;
      }
      r.sequential = js.rw == RwMode::read || js.rw == RwMode::write || js.rw == RwMode::rw;
    }
    if (!q.sq.doorbell_needed()) ++doorbells;  // first SQE for this queue in the batch
    q.mem.sq[q.sq.push()] = rid;
    ++q.submitted;
  }
  if (k == 0) return 0;
  j.inflight += k;
  if (j.open_loop()) j.backlog -= k;
  cost += j.costs.syscall + j.costs.submit_per_io * k +
          m_.scenario->host.doorbell_mmio * doorbells;
  return k;
}

// The job's next segment, fio's loop: submit while there is room, else reap what is
// ready, else wait for enough completions (polling its queues, or blocked in the kernel).
Duration JobModel::begin(Job& j) {
  const JobSpec& js = *j.spec;
  Duration cost;
  if (j.task.woken) {
    cost += m_.scenario->host.context_switch;
    j.task.woken = false;
  }
  bool in_syscall = j.in_syscall;
  j.in_syscall = false;
  const bool in_wait = j.in_wait;
  j.in_wait = false;
  cost += run_task_work(j);
  if (js.submit_and_wait && !j.polls) return begin_enter_loop(j, cost);

  uint64_t room = js.iodepth - j.inflight;
  if (j.open_loop()) room = std::min<uint64_t>(room, j.backlog);
  if (room > 0) {
    auto want = static_cast<uint32_t>(std::min<uint64_t>(room, js.iodepth_batch_submit));
    if (uint32_t k = submit(j, want, cost); k > 0) {
      j.seg = Job::Segment::submit;
      j.seg_count = k;
      return cost;
    }
  }

  if (j.inflight == 0) {  // open loop with nothing to do: sleep until the next arrival
    j.seg = Job::Segment::idle_wait;
    return cost;
  }
  const uint32_t need = completions_to_wait_for(j);
  if (j.ready.size() >= need) {
    // io_uring reaps from the shared ring; libaio needs io_getevents unless this is the
    // same call that slept.
    bool syscall = js.ioengine == IoEngine::libaio && !in_syscall;
    cost += (syscall ? j.costs.syscall : Duration::zero()) + start_reap(j);
    return cost;
  }
  if (j.polls) {
    // One pass of the IOPOLL loop over the job's queues, inside io_uring_enter.
    j.seg = Job::Segment::poll;
    if (!in_syscall) cost += j.costs.syscall;
    uint32_t found = 0;
    Duration pass;
    for (uint32_t gq : j.queues) pass += m_.interrupts->app_poll(*(*m_.queues)[gq], found);
    cost += pass;
    // With no room to submit, nothing ready to reap and nothing found, the next pass is
    // this one again, unless a CQE lands.
    if (found == 0 && j.folds_empty_polls && j.inflight == js.iodepth) cost += fold_empty_passes(j, pass, cost);
    return cost;
  }
  j.seg = Job::Segment::block;
  j.wait_need = need;
  // Woken short of its minimum (an engine that wakes at every hand-off): it checks and
  // sleeps again inside the same wait call. Else fio's engines wait in a call of their
  // own, also right after a submit (io_getevents, or io_uring_enter with only
  // min_complete); t/io_uring's waits share its submitting call (begin_enter_loop).
  cost += in_wait ? Duration::zero() : j.costs.syscall;
  return cost;
}

// t/io_uring's loop (submit_and_wait; fio `t/io_uring.c`, submitter_uring_fn): each
// iteration prepares min(room, batch) SQEs and makes one io_uring_enter that submits them
// and, when the ring would not take another batch after them (inflight + batch > iodepth),
// waits in the same call for min(inflight, iodepth_batch_complete_min) completions; with
// nothing to submit the call only waits. After every call it reaps what the CQ ring holds
// (up to iodepth_batch_complete_max; t/io_uring takes all: 0). In an open loop (a replay)
// the room is also bounded by what has arrived.
Duration JobModel::begin_enter_loop(Job& j, Duration cost) {
  const JobSpec& js = *j.spec;
  if (j.call_waits) {
    if (j.ready.size() < j.wait_need) {  // still inside the call: sleeps (again)
      j.seg = Job::Segment::block;
      return cost;
    }
    j.call_waits = false;
  }
  if (j.reap_due) {
    j.reap_due = false;
    if (!j.ready.empty()) return cost + start_reap(j);
  }
  uint64_t room = js.iodepth - j.inflight;
  if (j.open_loop()) room = std::min<uint64_t>(room, j.backlog);
  const auto want = static_cast<uint32_t>(std::min<uint64_t>(room, js.iodepth_batch_submit));
  if (uint32_t k = want > 0 ? submit(j, want, cost) : 0; k > 0) {
    j.seg = Job::Segment::submit;
    j.seg_count = k;
    j.reap_due = true;
    j.call_waits = j.inflight + k > js.iodepth;
    j.wait_need = completions_to_wait_for(j);
    return cost;
  }
  if (j.inflight == 0) {  // open loop with nothing to do: sleep until the next arrival
    j.seg = Job::Segment::idle_wait;
    return cost;
  }
  j.seg = Job::Segment::block;  // a call that only waits
  j.call_waits = true;
  j.reap_due = true;
  j.wait_need = completions_to_wait_for(j);
  return cost + j.costs.syscall;
}

bool JobModel::end(Job& j) {
  switch (j.seg) {
    case Job::Segment::submit:
      ring_doorbells(j);
      j.in_syscall = j.spec->ioengine == IoEngine::io_uring;
      return true;
    case Job::Segment::reap:
      reap(j);
      return true;
    case Job::Segment::poll:
      j.task.folded = false;
      for (uint32_t gq : j.queues) m_.delivery->deliver(*(*m_.queues)[gq], Context::app);
      j.in_syscall = true;
      return true;
    case Job::Segment::block:
      j.in_syscall = true;
      if (j.ready.size() >= j.wait_need) return true;  // completions came during the call
      j.blocked = true;
      j.in_wait = true;
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

// Each queue's submitters, as the jobs' targets give them: a replayed command goes to its
// recorded queue instead, so a replay leaves every queue to the general path.
void JobModel::mark_submitters() {
  auto& queues = *m_.queues;
  std::vector<uint32_t> users(queues.size(), 0);
  for (auto& q : queues) q->submitters_on_core = !m_.replay;
  for (const Job& j : *m_.jobs) {
    for (uint32_t gq : j.queues) {
      HostQueue& q = *queues[gq];
      if (users[gq]++ == 0) q.sole_job = j.index;
      if (j.core != q.core) q.submitters_on_core = false;
    }
  }
  for (std::size_t gq = 0; gq < queues.size(); ++gq)
    if (users[gq] != 1 || m_.replay) queues[gq]->sole_job = HostQueue::kNoSoleJob;
}

// The passes after this empty one (costing `pass` each, from the end of this one's
// `first`) that are certain to find nothing join its segment (models/workload/empty_poll_fold.h): a
// CQE can land no earlier than its device says, and the window's boundaries read the
// queues' counters. Their counts are added now, as each pass would have added its own.
Duration JobModel::fold_empty_passes(Job& j, Duration pass, Duration first) {
  if (!fold_empty_polls_) return Duration::zero();
  const Time now = m_.eq->now();
  const Time next = now + (*m_.cores)[j.core]->segment_overhead() + first;
  // Postings the device has scheduled were scheduled before now: known. A command still in
  // its unit posts no earlier than a CQE post delay from now (a read: after its data's
  // transfer too), by an event not scheduled yet.
  Time known = Time::never();
  Duration post_delay = Duration::max();
  const bool reads_only = j.spec->rw == RwMode::randread || j.spec->rw == RwMode::read;
  for (uint32_t gq : j.queues) {
    const HostQueue& q = *(*m_.queues)[gq];
    const Device& dev = *(*m_.devices)[q.drive];
    known = min(known, dev.next_scheduled_cqe(q.qid));
    post_delay = min(post_delay, reads_only ? dev.read_post_delay(j.spec->bs) : dev.cqe_post_delay());
  }
  if (now < m_.observer->window_start()) known = min(known, m_.observer->window_start());
  // The run's last instant: the final counters are read after it.
  if (now >= m_.observer->window_end()) return Duration::zero();
  known = min(known, m_.observer->window_end());
  const Time unscheduled = now + post_delay;
  const uint64_t k = foldable_empty_passes(next, pass, known, unscheduled);
  if (k == 0) return Duration::zero();
  for (uint32_t gq : j.queues) (*m_.queues)[gq]->counters.poll_empty += k;
  j.task.folded = true;
  return pass * static_cast<int64_t>(k);
}

// Completions handed to the job as task_work (io_uring without IOPOLL) are posted to its
// CQ ring by the job itself, when it next runs in the kernel.
Duration JobModel::run_task_work(Job& j) {
  if (j.unposted == 0) return Duration::zero();
  Duration cost = j.costs.post_per_io * static_cast<int64_t>(j.unposted);
  j.unposted = 0;
  return cost;
}

// The end of the submit call: one SQ tail doorbell per queue the batch wrote to.
void JobModel::ring_doorbells(Job& j) {
  const Time now = m_.eq->now();
  for (uint32_t gq : j.queues) {
    HostQueue& q = *(*m_.queues)[gq];
    if (!q.sq.doorbell_needed()) continue;
    if (times_)
      for (uint32_t i = q.sq.db_tail; i != q.sq.tail; i = i + 1 == q.sq.depth ? 0 : i + 1)
        times_[q.mem.sq[i]].doorbell = now;
    (*m_.drives)[q.drive].inflight_add(now, nvme::ring_distance(q.sq.db_tail, q.sq.tail, q.sq.depth));
    (*m_.devices)[q.drive]->sq_doorbell(q.qid, q.sq.ring_doorbell());
    if (m_.observer->tracing()) m_.observer->queue_counters_changed(q, now);
  }
}

// The end of the reap: latencies of the reaped I/Os go to the results if in the window.
void JobModel::reap(Job& j) {
  const Time now = m_.eq->now();
  const bool count = m_.observer->counts(now);
  // The reaped requests were last touched by the device, long ago: fetch a few ahead so
  // their cache misses overlap instead of stalling one by one.
  constexpr uint32_t kAhead = 4;
  for (uint32_t i = 0; i < std::min(kAhead, j.seg_count); ++i) __builtin_prefetch(&(*m_.requests)[j.ready[i]]);
  for (uint32_t i = 0; i < j.seg_count; ++i) {
    if (i + kAhead < j.seg_count) __builtin_prefetch(&(*m_.requests)[j.ready[kAhead]]);
    uint32_t rid = j.ready.front();
    j.ready.pop_front();
    const Request& r = (*m_.requests)[rid];
    if (j.replays) m_.observer->replayed_command_reaped(rid, now);
    if (count) {
      std::size_t slot = 0;
      while (j.queues[slot] != r.queue) ++slot;
      const std::size_t dir = r.write ? 1 : 0;
      j.latency[2 * slot + dir].record((now - r.submitted).count_ns());
      ++j.ios[slot];
      j.bytes[slot] += r.bytes;
      ++j.ios_by_dir[dir];
      j.bytes_by_dir[dir] += r.bytes;
    }
    j.free_reqs.push_back(rid);
  }
  j.inflight -= j.seg_count;
}

}  // namespace nvmesim
