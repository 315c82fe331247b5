// The kernel's hand-off of reaped completions to the jobs that submitted them: posting to
// the job's completion ring (io_uring CQ, aio ring) and waking a job blocked waiting for
// them. Every reaper (hard IRQ, softirq, IRQ thread, app polling) charges the same cost
// and hands off the same way, when its segment ends.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "models/cpu_core.h"
#include "models/host_queue.h"
#include "models/job.h"
#include "models/profiles.h"
#include "models/request.h"
#include "sim/time.h"

namespace nvmesim {

class CompletionDelivery {
 public:
  CompletionDelivery(const HostProfile& host, std::vector<Job>& jobs, const std::vector<Request>& requests,
                     std::vector<std::unique_ptr<Core>>& cores)
      : host_(&host), jobs_(&jobs), requests_(&requests), cores_(&cores) {}

  // Cost of posting, and of waking a job, for the CQEs drained into q.drained from
  // `first` on (charged to the drainer's segment).
  Duration cost(const HostQueue& q, std::size_t first) const;
  // Hands the queue's drained CQEs to their jobs; wakes jobs whose wait is satisfied.
  void deliver(HostQueue& q) { deliver(q.drained); }
  // The same for any list of completed requests (emptied).
  void deliver(std::vector<uint32_t>& rids);
  // The core of the job that submitted request `rid`.
  uint32_t submitter_core(uint32_t rid) const { return (*jobs_)[(*requests_)[rid].job].core; }
  // Makes a blocked job runnable; its next segment pays the context switch.
  void wake(Job& j);

 private:
  const HostProfile* host_;
  std::vector<Job>* jobs_;
  const std::vector<Request>* requests_;
  std::vector<std::unique_ptr<Core>>* cores_;
};

}  // namespace nvmesim
