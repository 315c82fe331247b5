// A recorded per-command trace, resolved against a scenario, that drives the simulator
// instead of its jobs' closed loop (nvmesim run --replay): each command enters at its
// recorded submit time on its recorded queue, with the trace's operation and size.
// Plain data, read and checked once before the run (app/replay/replay_load.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vocab/time.h"

namespace nvmesim {

struct ReplayCommand {
  uint32_t line = 0;   // in the trace file, for messages and the diff
  uint32_t queue = 0;  // global queue index (the topology's numbering)
  uint32_t job = 0;    // job clone that submits it
  uint32_t cid = 0;    // as recorded
  uint32_t bytes = 4096;
  bool write = false;
  Time submit;  // recorded submission: the command enters the simulation then
  // Recorded later times; Time::never() where the trace has none (iolog: all of them;
  // hw traces: posted).
  Time doorbell = Time::never();
  Time posted = Time::never();
  Time seen = Time::never();
  // --replay-service: the device posts the CQE this long after the doorbell; negative:
  // the device model's own service time.
  Duration device_time = Duration::ns(-1);
  // --replay-service: the posting became known (the unit finished) this long before it;
  // negative: the trace does not say (older traces, hw), the device model estimates it.
  Duration known_ahead = Duration::ns(-1);
  // An `inflight` row: submitted in the trace's window, its CQE not seen there. Replayed,
  // but never compared (nothing recorded to compare with).
  bool inflight = false;
  // --replay-service, an inflight row the window did not see posted: the device model
  // serves it, but does not post it before this (the window's end: it was not posted then).
  Time post_not_before = Time::zero();
  // ... and when its unit finished, if the window saw that (never: it did not).
  Time unit_done_unposted = Time::never();
};

// A replay runs at least this long past the trace's last recorded time, so that the
// commands in flight then complete (the measured window grows if needed).
inline constexpr Duration kReplayTail = Duration::ms(1);

struct ReplayTrace {
  std::string path;
  std::string format;  // "command-trace" or "fio-iolog-v3"
  bool service = false;  // --replay-service
  // What --replay-service took as the device time: "doorbell_to_cqe_posted" (simulator
  // traces), "doorbell_to_cqe_seen" (hw traces, no posting time), or empty.
  std::string service_source;
  std::vector<ReplayCommand> commands;  // by recorded submit time, then file order
  uint64_t skipped = 0;                 // iolog actions with no NVMe I/O command in the model (sync, trim)
};

// What the simulation did with each replayed command (same index as the trace's).
struct ReplayedTimes {
  Time submit = Time::never();
  Time doorbell = Time::never();
  Time posted = Time::never();
  Time seen = Time::never();
  Time reaped = Time::never();  // never(): not reaped by the end of the run (unmatched)
};

}  // namespace nvmesim
