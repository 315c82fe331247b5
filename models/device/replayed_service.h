// A device service-time source that takes each command's device time from a recorded
// trace (--replay-service): the controller still fetches the command (arbitration and
// the front end's IOPS ceiling keep the SQ head it reports), but instead of a parallel
// unit, a drawn service time and the PCIe link, the CQE is posted exactly the recorded
// time after the host's doorbell, or at the fetch if that comes later. MSI-X, masking and
// coalescing apply to the posting as to any other, so only the host model is under test.
#pragma once

#include <cstdint>
#include <vector>

#include "models/workload/replay_trace.h"
#include "models/workload/request.h"
#include "vocab/time.h"

namespace nvmesim {

class ReplayedService {
 public:
  explicit ReplayedService(const ReplayTrace& trace) : trace_(&trace) {}

  // When the CQE of request `r` (its times: RequestTimes), fetched and ready at `fetched`,
  // is posted.
  Time posting(const RequestTimes& r, Time fetched) const {
    const Duration d = trace_->commands[r.command].device_time;
    return max(r.doorbell + d, fetched);
  }
  // Whether the trace gives request `r`'s device time; if not (an inflight row not yet
  // posted when the window closed), the device model serves it, posting not before
  // not_before(r).
  bool recorded(const RequestTimes& r) const { return trace_->commands[r.command].device_time >= Duration::zero(); }
  Time not_before(const RequestTimes& r) const { return trace_->commands[r.command].post_not_before; }
  // How long before its posting the device knew it (its unit finished), as recorded;
  // negative when the trace does not say.
  Duration known_ahead(const RequestTimes& r) const { return trace_->commands[r.command].known_ahead; }
  // An unrecorded request's unit end as its trace saw it, unposted (never: not seen).
  Time unit_done_unposted(const RequestTimes& r) const { return trace_->commands[r.command].unit_done_unposted; }
  // When request `r`'s unit finished, as recorded (known_ahead(r) must not be negative).
  Time unit_done(const RequestTimes& r) const {
    const auto& c = trace_->commands[r.command];
    return r.doorbell + c.device_time - c.known_ahead;
  }

 private:
  const ReplayTrace* trace_;
};

}  // namespace nvmesim
