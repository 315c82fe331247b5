// The simulator's implementation of the policy API's DriveEnv: a drive policy's view of
// one controller during a monitoring cycle (policy C). Costs go to the monitor's context.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "policies/api/queue_env.h"
#include "sim/time.h"

namespace nvmesim {

class System;

class SimDriveEnv {
 public:
  SimDriveEnv(System& sys, uint32_t drive) : sys_(&sys), drive_(drive) {}

  Time now() const;
  uint64_t completions_total() const;
  uint64_t inflight_total() const;
  double inflight_integral() const;
  uint32_t io_queue_count() const;
  void set_coalescing(uint32_t thr, uint32_t time_100us);
  void mode_change(std::string_view from, std::string_view to, std::string reason);

  Duration cost() const { return cost_; }

 private:
  System* sys_;
  uint32_t drive_;
  Duration cost_;
};

static_assert(policy::DriveEnv<SimDriveEnv>);

}  // namespace nvmesim
