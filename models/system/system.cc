#include "models/system/system.h"

#include <cassert>
#include <numeric>

namespace nvmesim {
namespace {
constexpr Duration kProgressStep = Duration::ms(1);
}  // namespace

System::System(const Scenario& scenario, const ReplayTrace* replay)
    : sc_(scenario),
      topology_(Topology::of(sc_)),
      replay_(replay),
      observer_({&sc_, &cores_, &devices_, &queues_, &jobs_, &requests_, &softirqs_}),
      delivery_(sc_.host, jobs_, requests_, cores_),
      reaper_(sc_.host, devices_, drives_, delivery_, observer_),
      kernel_({&eq_, &sc_, &topology_, &cores_, &devices_, &queues_, &drives_, &softirqs_, &reaper_, &observer_}),
      interrupts_(kernel_, delivery_),
      job_model_({&eq_, &sc_, &cores_, &devices_, &queues_, &drives_, &jobs_, &requests_, &interrupts_, &delivery_,
                  &observer_, replay}) {
  build();
}

System::~System() = default;

void System::build() {
  const uint32_t ncores = sc_.host.cores;
  CoreOwner owner{this, &System::begin_segment, &System::end_segment};
  for (uint32_t c = 0; c < ncores; ++c) {
    cores_.push_back(std::make_unique<Core>(eq_, owner, c));
    cores_.back()->set_costs(CoreCosts{sc_.host.switch_out, sc_.host.idle_entry, sc_.host.idle_exit});
  }
  kernel_.build_timer_interrupts(ncores);
  softirqs_.resize(ncores);
  for (uint32_t c = 0; c < ncores; ++c) {
    softirqs_[c].task = Task::make(Context::softirq, c, c);
    softirqs_[c].ksoftirqd = Task::make(Context::app, c, c);
    softirqs_[c].ksoftirqd.ksoftirqd = true;
    softirqs_[c].run = SoftirqRun(sc_.host.softirq_limits);
  }

  // Requests first: the pool must not move once devices hold a reference to it.
  uint32_t total_reqs = 0;
  for (const auto& js : sc_.jobs) total_reqs += js.iodepth * js.numjobs;
  requests_.resize(total_reqs);

  const policy::PolicyInfo* info = policy::find_policy(sc_.policy.name);
  assert(info && "the loader validates the policy name");
  const policy::ParamMap& params = sc_.policy.params;
  if (replay_) {
    replayed_.resize(replay_->commands.size());
    observer_.enable_replay(&replayed_);
    if (replay_->service) replayed_service_ = std::make_unique<ReplayedService>(*replay_);
  }
  drives_.resize(sc_.drives.size());
  for (uint32_t d = 0; d < sc_.drives.size(); ++d) build_drive(d, *info, params);
  job_model_.build(topology_, info->app_polls);
  started_jobs_.resize(jobs_.size());
  std::iota(started_jobs_.begin(), started_jobs_.end(), 0u);
  started_drives_.resize(drives_.size());
  std::iota(started_drives_.begin(), started_drives_.end(), 0u);
}

void System::limit_to(const Partition& part) {
  started_jobs_ = part.jobs;
  started_drives_ = part.drives;
}

// One drive: its device, its queue pairs as the topology places them, its drive policy.
void System::build_drive(uint32_t d, const policy::PolicyInfo& info, const policy::ParamMap& params) {
  const DeviceProfile& prof = sc_.drives[d].profile;
  devices_.push_back(std::make_unique<Device>(eq_, prof, d, sc_.seed, kernel_.msix_sink(), requests_));
  devices_.back()->use_replayed_service(replayed_service_.get());
  if (InterruptDelivery* delivery = kernel_.interrupt_delivery()) devices_.back()->order_posted_writes(delivery);
  const uint32_t depth = std::min(sc_.queue_depth, prof.max_queue_depth);
  const std::size_t ring_bytes = QueueMemory::bytes(depth);
  rings_.emplace_back(ring_bytes * topology_.drive_queues(d).size());
  std::byte* rings = rings_.back().data();
  for (uint32_t gq : topology_.drive_queues(d)) {
    const Topology::Queue& tq = topology_.queue(gq);
    assert(gq == queues_.size() && "queues are built in the topology's order");
    auto q = std::make_unique<HostQueue>(depth, rings, tq.policy->make(params));
    rings += ring_bytes;
    q->index = gq;
    q->drive = d;
    q->qid = tq.qid;
    q->polled = !tq.policy->uses_vector;
    if (tq.policy->watches_latency) q->latencies = std::make_unique<policy::LatencyBuckets>();
    q->core = tq.core;
    q->rng = sim::Rng(sc_.seed, sim::stream_key("queue", d, tq.qid));
    q->hardirq = Task::make(Context::hardirq, gq, q->core);
    q->thread = Task::make(Context::irq_thread, gq, q->core);
    devices_[d]->add_queue(&q->mem, depth, tq.qid, !q->polled);
    queues_.push_back(std::move(q));
  }
  if (info.per_drive()) drives_[d].policy.emplace(info.make_drive(params));
  if (info.static_coalescing) {
    policy::Coalescing c = info.static_coalescing(params);
    devices_[d]->admin_set_coalescing(c.thr, c.time_100us);
  }
}

std::string System::drive_mode(uint32_t d) const {
  return drives_[d].policy ? std::string(policy::drive_policy_mode(*drives_[d].policy)) : std::string();
}

uint64_t System::drive_decisions(uint32_t d) const {
  return drives_[d].policy ? policy::drive_policy_decisions(*drives_[d].policy) : 0;
}

void System::run(const std::function<void(double)>& progress) {
  const Time window_start = Time::zero() + sc_.warmup;
  const Time window_end = window_start + sc_.duration;
  observer_.set_window(window_start, window_end);
  // A request's trace-only times exist only when a command trace or a replay reads them.
  if (observer_.watches_commands() && request_times_.size() != requests_.size()) request_times_.resize(requests_.size());
  RequestTimes* times = request_times_.empty() ? nullptr : request_times_.data();
  for (auto& d : devices_) {
    d->measure_window(window_start, window_end);
    d->record_command_times(times);
  }
  job_model_.record_request_times(times);
  observer_.read_request_times(times);
  job_model_.start(started_jobs_);
  kernel_.start_monitors(started_drives_);
  if (sc_.warmup == Duration::zero()) observer_.start_window();
  else eq_.schedule(window_start, &System::on_window_start, this, 0);

  if (!progress) {
    eq_.run_until(window_end);
  } else {
    Duration total = window_end - Time::zero();
    for (Time t = Time::zero() + kProgressStep; ; t += kProgressStep) {
      Time stop = min(t, window_end);
      eq_.run_until(stop);
      progress(static_cast<double>(stop.ns()) / static_cast<double>(total.count_ns()));
      if (stop == window_end) break;
    }
  }
  observer_.finish_window();
  observer_.finish_trace(eq_.now());
  observer_.finish_command_trace();
}

void System::on_window_start(void* self, uint64_t) { static_cast<System*>(self)->observer_.start_window(); }

Duration System::begin_segment(void* self, Task& t) {
  auto* s = static_cast<System*>(self);
  switch (t.context) {
    case Context::app:
      if (t.ksoftirqd) return s->interrupts_.begin_ksoftirqd(t.index);
      return s->job_model_.begin(s->jobs_[t.index]);
    case Context::hardirq:
      if (t.timer_irq) return s->interrupts_.begin_timer_irq(t.index);
      return s->interrupts_.begin_hardirq(*s->queues_[t.index]);
    case Context::softirq: return s->interrupts_.begin_softirq(t.index);
    case Context::irq_thread: return s->interrupts_.begin_thread(*s->queues_[t.index]);
  }
  return Duration::zero();
}

bool System::end_segment(void* self, Task& t) {
  auto* s = static_cast<System*>(self);
  switch (t.context) {
    case Context::app:
      if (t.ksoftirqd) return s->interrupts_.end_ksoftirqd(t.index);
      return s->job_model_.end(s->jobs_[t.index]);
    case Context::hardirq:
      if (t.timer_irq) return s->interrupts_.end_timer_irq(t.index);
      return s->interrupts_.end_hardirq(*s->queues_[t.index]);
    case Context::softirq: return s->interrupts_.end_softirq(t.index);
    case Context::irq_thread: return s->interrupts_.end_thread(*s->queues_[t.index]);
  }
  return false;
}

}  // namespace nvmesim
