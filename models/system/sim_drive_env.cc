#include "models/system/sim_drive_env.h"

namespace nvmesim {

// The drive's own count (HostDrive::completions, added to at every drain as its queues'
// counters are), the one QueueEnv::drive_completions reads.
uint64_t SimDriveEnv::completions_total() const { return host_->drive(drive_).completions; }

double SimDriveEnv::inflight_integral() const {
  HostDrive& d = host_->drive(drive_);
  d.inflight_add(now(), 0);  // bring the integral up to now
  return d.inflight_integral;
}

void SimDriveEnv::set_coalescing(uint32_t thr, uint32_t time_100us) {
  cost_ += host_->host().admin_submit;  // the CPU side of the Set Features admin command
  host_->device(drive_).admin_set_coalescing(thr, time_100us);
}

void SimDriveEnv::mode_change(std::string_view from, std::string_view to, std::string reason) {
  host_->observer().mode_change(nullptr, now(), from, to, reason);
  HostDrive& d = host_->drive(drive_);
  if (d.timeline.size() >= host_->timeline_cap()) {
    ++d.timeline_dropped;  // counted, not kept: the results say so and give no mode_share
    return;
  }
  d.timeline.push_back(ModeChange{now(), std::string(from), std::string(to), std::move(reason)});
}

}  // namespace nvmesim
