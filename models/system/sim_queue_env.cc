#include "models/system/sim_queue_env.h"

namespace nvmesim {

void SimQueueEnv::mode_change(std::string_view from, std::string_view to, std::string reason) {
  HostQueue& q = *q_;
  ++q.counters.mode_changes;
  host_->observer().mode_change(&q, now(), from, to, reason);
  if (q.timeline.size() >= host_->timeline_cap()) {
    ++q.timeline_dropped;
    return;
  }
  q.timeline.push_back(ModeChange{now(), std::string(from), std::string(to), std::move(reason)});
}

}  // namespace nvmesim
