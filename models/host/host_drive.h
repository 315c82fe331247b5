// Host side of one simulated drive: its drive-level policy (policy C's monitor, if the
// policy has one) with its mode timeline, the driver's total inflight with its time
// integral, which a drive policy reads as the average queue depth, and the CQEs reaped on
// all its queues (a queue policy's QueueEnv::drive_completions) and the word its queues'
// policies share (QueueEnv::drive_word).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/host/host_queue.h"
#include "policies/registry.h"
#include "vocab/time.h"

namespace nvmesim {

struct HostDrive {
  std::optional<policy::AnyDrivePolicy> policy;
  std::vector<ModeChange> timeline;
  uint64_t timeline_dropped = 0;  // mode changes past the cap (HostKernel::timeline_cap)

  uint64_t completions = 0;      // CQEs reaped on all its queues since the start (never reset)
  uint64_t policy_word = 0;      // the word its queues' policies share (QueueEnv::drive_word)
  int64_t inflight = 0;          // submitted to the drive (SQ doorbell), not yet reaped
  double inflight_integral = 0;  // of inflight over time, in command-ns
  Time integral_at;

  // Brings the integral up to `now`, then adds `delta` to inflight.
  void inflight_add(Time now, int64_t delta) {
    inflight_integral += static_cast<double>(inflight) * static_cast<double>((now - integral_at).count_ns());
    integral_at = now;
    inflight += delta;
  }
};

}  // namespace nvmesim
