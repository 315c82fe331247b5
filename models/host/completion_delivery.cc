#include "models/host/completion_delivery.h"

#include <algorithm>

namespace nvmesim {
namespace {

bool wakes_each(CompletionPosting p) {
  return p == CompletionPosting::in_completer_wake_each || p == CompletionPosting::in_task_wake_each;
}

// Whether a hand-off to job `j`, with `not_yet_ready` of its completions still to be
// added to j.ready, wakes it.
bool wakes(const Job& j, std::size_t not_yet_ready) {
  if (!j.blocked || j.wait_need == 0) return false;
  return wakes_each(j.costs.posting) || j.ready.size() + not_yet_ready >= j.wait_need;
}

}  // namespace

bool CompletionDelivery::posted_by_task(const Job& j, Context ctx) {
  // The polling application reaps in its own context: it posts directly (io_do_iopoll).
  return ctx != Context::app && (j.costs.posting == CompletionPosting::in_task_wake_each ||
                                 j.costs.posting == CompletionPosting::in_task_wake_at_min);
}

Duration CompletionDelivery::cost(const HostQueue& q, std::size_t first, Context ctx) const {
  const std::vector<Job>& jobs = *jobs_;
  const std::vector<Request>& requests = *requests_;
  if (q.sole_job != HostQueue::kNoSoleJob) {  // every completion is that job's: the loops below, summed
    const Job& j = jobs[q.sole_job];
    const auto n = static_cast<int64_t>(q.drained.size() - first);
    if (n == 0) return Duration::zero();
    return (posted_by_task(j, ctx) ? host_->task_work_add : j.costs.post_per_io) * n +
           (wakes(j, q.drained.size() - first) ? host_->wakeup : Duration::zero());
  }
  Duration cost;
  // The drained requests are cold (last touched by the device): fetch a few ahead so the
  // misses overlap.
  constexpr std::size_t kAhead = 4;
  for (std::size_t i = first; i < std::min(first + kAhead, q.drained.size()); ++i)
    __builtin_prefetch(&requests[q.drained[i]]);
  for (std::size_t i = first; i < q.drained.size(); ++i) {
    if (i + kAhead < q.drained.size()) __builtin_prefetch(&requests[q.drained[i + kAhead]]);
    const Job& j = jobs[requests[q.drained[i]].job];
    cost += posted_by_task(j, ctx) ? host_->task_work_add : j.costs.post_per_io;
  }
  // A blocked job whose wait these completions satisfy (or, waking each time, any blocked
  // job they are for) is woken by the drainer.
  for (std::size_t i = first; i < q.drained.size(); ++i) {
    const Job& j = jobs[requests[q.drained[i]].job];
    if (wakes(j, q.drained.size() - first)) {
      cost += host_->wakeup;
      break;
    }
  }
  return cost;
}

void CompletionDelivery::deliver(HostQueue& q, Context ctx) {
  if (q.sole_job == HostQueue::kNoSoleJob || q.drained.empty()) {
    deliver(q.drained, ctx);
    return;
  }
  // Every completion is that job's: as deliver(rids) does it, without a look-up each.
  Job& j = (*jobs_)[q.sole_job];
  for (uint32_t rid : q.drained) j.ready.push_back(rid);
  if (posted_by_task(j, ctx)) j.unposted += static_cast<uint32_t>(q.drained.size());
  if (wakes(j, 0)) wake(j);
  q.drained.clear();
}

void CompletionDelivery::deliver(std::vector<uint32_t>& rids, Context ctx) {
  std::vector<Job>& jobs = *jobs_;
  const std::vector<Request>& requests = *requests_;
  for (uint32_t rid : rids) {
    Job& j = jobs[requests[rid].job];
    j.ready.push_back(rid);
    if (posted_by_task(j, ctx)) ++j.unposted;
  }
  for (uint32_t rid : rids) {
    Job& j = jobs[requests[rid].job];
    if (wakes(j, 0)) wake(j);
  }
  rids.clear();
}
void CompletionDelivery::wake(Job& j) {
  j.blocked = false;
  j.task.woken = true;
  (*cores_)[j.core]->make_runnable(j.task);
}

}  // namespace nvmesim
