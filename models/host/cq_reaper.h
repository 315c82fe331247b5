// The one CQ reaper of the simulated driver (nvme_poll_cq): every context that drains a
// completion queue -- hard IRQ, softirq, IRQ thread, the polling application -- drains
// it here, and policies only decide when. The loop goes on while it finds CQEs, including
// those the device posts while the loop runs: at each step it asks the device whether
// the next CQE is posted by the time the loop gets there.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/host/completion_delivery.h"
#include "models/device/device.h"
#include "models/host/host_drive.h"
#include "models/host/host_queue.h"
#include "models/system/run_observer.h"
#include "vocab/context.h"
#include "vocab/profiles.h"
#include "vocab/time.h"

namespace nvmesim {

class CqReaper {
 public:
  CqReaper(const HostProfile& host, std::vector<std::unique_ptr<Device>>& devices, std::vector<HostDrive>& drives,
           const CompletionDelivery& delivery, RunObserver& observer)
      : host_(&host), devices_(&devices), drives_(&drives), delivery_(&delivery), obs_(&observer) {}

  struct Reaped {
    uint32_t count = 0;
    Duration cost;  // per CQE, the CQ head doorbell and the hand-off to the jobs
  };
  static bool cqe_pending(const HostQueue& q) { return q.mem.cq[q.cq.head].phase == q.cq.phase; }
  // Drains up to `budget` CQEs of `q` in context `ctx`, in a segment that started at
  // `now` and reaches the CQ at `at`.
  Reaped reap(HostQueue& q, Context ctx, Time now, Time at, uint32_t budget);

 private:
  // One CQE's completion work in `ctx`, by the host's cqe_cost: the same code everywhere
  // (same_code), or the model as it was (by_context).
  Duration cqe_cost(Context ctx) const;
  // same_code: a drain that starts on cold caches (after an interrupt, a timer or a
  // switch-in; not in a polling loop) pays cqe_cold once -- the completion path's code
  // and the queue's structures are missed once per drain, while each request's own data
  // was written by the device or another core and is cold in every context alike.
  Duration cold_start(HostQueue& q) const;

  const HostProfile* host_;
  std::vector<std::unique_ptr<Device>>* devices_;
  std::vector<HostDrive>* drives_;
  const CompletionDelivery* delivery_;
  RunObserver* obs_;
};

}  // namespace nvmesim
