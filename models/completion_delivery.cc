#include "models/completion_delivery.h"

namespace nvmesim {

Duration CompletionDelivery::cost(const HostQueue& q, std::size_t first) const {
  const std::vector<Job>& jobs = *jobs_;
  const std::vector<Request>& requests = *requests_;
  Duration cost;
  for (std::size_t i = first; i < q.drained.size(); ++i) cost += jobs[requests[q.drained[i]].job].costs.post_per_io;
  // A blocked job whose wait these completions satisfy is woken by the drainer.
  for (std::size_t i = first; i < q.drained.size(); ++i) {
    const Job& j = jobs[requests[q.drained[i]].job];
    if (j.blocked && j.wait_need > 0 && j.ready.size() + (q.drained.size() - first) >= j.wait_need) {
      cost += host_->wakeup;
      break;
    }
  }
  return cost;
}

void CompletionDelivery::deliver(std::vector<uint32_t>& rids) {
  std::vector<Job>& jobs = *jobs_;
  const std::vector<Request>& requests = *requests_;
  for (uint32_t rid : rids) jobs[requests[rid].job].ready.push_back(rid);
  for (uint32_t rid : rids) {
    Job& j = jobs[requests[rid].job];
    if (j.blocked && j.wait_need > 0 && j.ready.size() >= j.wait_need) wake(j);
  }
  rids.clear();
}

void CompletionDelivery::wake(Job& j) {
  j.blocked = false;
  j.task.woken = true;
  (*cores_)[j.core]->make_runnable(j.task);
}

}  // namespace nvmesim
