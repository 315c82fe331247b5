// The kernel's hand-off of reaped completions to the jobs that submitted them: posting to
// the job's completion ring (io_uring CQ, aio ring) and waking a job blocked waiting for
// them. Every reaper (hard IRQ, softirq, IRQ thread, app polling) charges the same cost
// and hands off the same way, when its segment ends. Where the CQE is posted and when the
// waiter wakes is the job's engine's CompletionPosting: by the completer, or as
// task_work that the job's own next segment runs (posting its CQEs); at the job's
// minimum, or at every hand-off while it waits.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "models/host/cpu_core.h"
#include "models/host/host_queue.h"
#include "models/workload/job.h"
#include "models/workload/request.h"
#include "vocab/context.h"
#include "vocab/profiles.h"
#include "vocab/time.h"

namespace nvmesim {

class CompletionDelivery {
 public:
  CompletionDelivery(const HostProfile& host, std::vector<Job>& jobs, const std::vector<Request>& requests,
                     std::vector<std::unique_ptr<Core>>& cores)
      : host_(&host), jobs_(&jobs), requests_(&requests), cores_(&cores) {}

  // Cost of posting (or queueing task_work), and of waking a job, for the CQEs drained
  // into q.drained from `first` on by context `ctx` (charged to the drainer's segment).
  Duration cost(const HostQueue& q, std::size_t first, Context ctx) const;
  // Adds the latencies of the CQEs drained into q.drained from `first` on, consumed at
  // `at`, to q.latencies (a policy that watches them).
  void add_latencies(HostQueue& q, std::size_t first, Time at) const {
    for (std::size_t i = first; i < q.drained.size(); ++i) q.latencies->add((*requests_)[q.drained[i]].submitted, at);
  }
  // Hands the queue's drained CQEs (drained by `ctx`) to their jobs; wakes the jobs
  // their engine's posting wakes.
  void deliver(HostQueue& q, Context ctx);
  // The same for requests completed elsewhere and sent here (emptied).
  void deliver(std::vector<uint32_t>& rids, Context ctx);
  // The core of the job that submitted request `rid`.
  uint32_t submitter_core(uint32_t rid) const { return (*jobs_)[(*requests_)[rid].job].core; }
  // Makes a blocked job runnable; its next segment pays the context switch.
  void wake(Job& j);
  // True when the job's engine posts in the task (task_work) and a drain by `ctx` does
  // not: the job's own next segment posts.
  static bool posted_by_task(const Job& j, Context ctx);

 private:
  const HostProfile* host_;
  std::vector<Job>* jobs_;
  const std::vector<Request>* requests_;
  std::vector<std::unique_ptr<Core>>* cores_;
};

}  // namespace nvmesim
