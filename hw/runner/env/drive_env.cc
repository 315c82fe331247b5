#include "hw/runner/env/drive_env.h"

#include <mutex>

namespace nvmesim::hw {

uint64_t HwDriveEnv::completions_total() const {
  uint64_t n = 0;
  for (HwQueueEnv* q : queues_) {
    std::lock_guard lock(q->mutex());
    n += q->recorder().completed();
  }
  return n;
}

uint64_t HwDriveEnv::inflight_total() const {
  uint64_t n = 0;
  for (HwQueueEnv* q : queues_) {
    std::lock_guard lock(q->mutex());
    n += q->inflight();
  }
  return n;
}

double HwDriveEnv::inflight_integral() const {
  Time at = clock_.now();
  double sum = 0;
  for (HwQueueEnv* q : queues_) {
    std::lock_guard lock(q->mutex());
    sum += q->inflight_integral(at);
  }
  return sum;
}

void HwDriveEnv::set_coalescing(uint32_t thr, uint32_t time_100us) {
  ++sent_;
  nvme::AdminResult r = ctrl_.set_feature(nvme::feature::kInterruptCoalescing,
                                          ((time_100us & 0xff) << 8) | (thr & 0xff));
  if (!r.ok()) {
    ++refused_;
    last_refusal_ = nvme::describe_status(r.status);
  }
}

void HwDriveEnv::mode_change(std::string_view from, std::string_view to, std::string reason) {
  modes_.push_back({0, clock_.now(), std::string(from), std::string(to), std::move(reason)});
}

}  // namespace nvmesim::hw
