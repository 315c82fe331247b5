// The simulator's implementation of the policy API's DriveEnv: a drive policy's view of
// one controller during a monitoring cycle (policy C). Costs go to the monitor's context.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "models/host/host_kernel.h"
#include "policies/api/queue_env.h"
#include "vocab/time.h"

namespace nvmesim {

class SimDriveEnv {
 public:
  SimDriveEnv(HostKernel& host, uint32_t drive) : host_(&host), drive_(drive) {}

  Time now() const { return host_->now(); }
  uint64_t completions_total() const;
  uint64_t inflight_total() const { return static_cast<uint64_t>(host_->drive(drive_).inflight); }
  double inflight_integral() const;
  uint32_t io_queue_count() const { return static_cast<uint32_t>(host_->topology().drive_queues(drive_).size()); }
  void set_coalescing(uint32_t thr, uint32_t time_100us);
  void mode_change(std::string_view from, std::string_view to, std::string reason);

  Duration cost() const { return cost_; }

 private:
  HostKernel* host_;
  uint32_t drive_;
  Duration cost_;
};

static_assert(policy::DriveEnv<SimDriveEnv>);

}  // namespace nvmesim
