// The policy API's DriveEnv on a real controller, for per-drive policies (policy C):
// signals summed over the run's I/O queues, and Set Features 08h as a real admin
// command, tolerated when the controller refuses it. Used from one monitor thread, the
// only user of the admin queue while I/O runs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hw/base/clock.h"
#include "hw/nvme/controller.h"
#include "hw/runner/env/queue_env.h"
#include "policies/api/queue_env.h"
#include "vocab/command_trace.h"

namespace nvmesim::hw {

class HwDriveEnv {
 public:
  HwDriveEnv(nvme::Controller& ctrl, std::vector<HwQueueEnv*> queues, const Clock& clock)
      : ctrl_(ctrl), queues_(std::move(queues)), clock_(clock) {}

  Time now() const { return clock_.now(); }
  uint64_t completions_total() const;
  uint64_t inflight_total() const;
  double inflight_integral() const;
  uint32_t io_queue_count() const { return uint32_t(queues_.size()); }
  void set_coalescing(uint32_t thr, uint32_t time_100us);
  void mode_change(std::string_view from, std::string_view to, std::string reason);

  const std::vector<trace::ModeRecord>& modes() const { return modes_; }
  uint64_t set_features_sent() const { return sent_; }
  uint64_t set_features_refused() const { return refused_; }
  std::string last_refusal() const { return last_refusal_; }

 private:
  nvme::Controller& ctrl_;
  std::vector<HwQueueEnv*> queues_;
  const Clock& clock_;
  std::vector<trace::ModeRecord> modes_;
  uint64_t sent_ = 0, refused_ = 0;
  std::string last_refusal_;
};

static_assert(policy::DriveEnv<HwDriveEnv>);

}  // namespace nvmesim::hw
