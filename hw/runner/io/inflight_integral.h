// The time integral of a queue's inflight count, in commands x ns: the load signal
// drive policies read (DriveEnv::inflight_integral). Closed before every change of
// inflight, by the submitter at a doorbell and by the reaper when the CQ head moves.
#pragma once

#include <cstdint>

#include "vocab/time.h"

namespace nvmesim::hw {

class InflightIntegral {
 public:
  // The integral up to `at`, `inflight` having held since the last close.
  double at(Time t, uint32_t inflight) const {
    return sum_ + double(inflight) * double((t - since_).count_ns());
  }
  void close(Time t, uint32_t inflight) {
    sum_ = at(t, inflight);
    since_ = t;
  }

 private:
  double sum_ = 0;
  Time since_ = Time::zero();
};

}  // namespace nvmesim::hw
