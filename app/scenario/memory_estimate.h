// The memory a run would allocate, estimated from the scenario before anything is
// allocated (requests, queue memory, drives, jobs, results, what the run records), so a scenario
// that would need gigabytes is refused at once with the bytes it would need, instead of
// failing with bad_alloc minutes later. Both `validate` and `run` check it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/input/input_error.h"
#include "vocab/scenario.h"

namespace nvmesim {

struct MemoryPart {
  std::string what;  // "requests", "queue memory", ...
  std::string path;  // the JSON path (or option) that sets its size
  uint64_t bytes = 0;
};

// What a run records besides its results: each costs memory when it is asked for.
struct Recording {
  bool trace = false;          // --trace: the trace buffer
  bool command_trace = false;  // --command-trace: its buffer, and every request's times (RequestTimes)
  bool replay = false;         // --replay: every request's times (the recorded command each carries)
  bool request_times() const { return command_trace || replay; }
};

struct MemoryEstimate {
  std::vector<MemoryPart> parts;
  uint64_t requests = 0;  // commands in flight at most (sum of iodepth x numjobs)
  uint64_t total() const;
};

// What the run records counts only when it is asked for: the trace buffers at their
// smallest useful size (kMinTraceRecords each; trace_caps gives them what is left under
// the limit), and a RequestTimes per request with a command trace or a replay.
MemoryEstimate estimate_memory(const Scenario& sc, const Recording& rec);

inline constexpr std::size_t kMaxTraceRecords = 4'000'000;  // the recorders' own caps
inline constexpr std::size_t kMinTraceRecords = 100'000;
// Mode-timeline entries kept per queue or drive of an adaptive policy: the estimate counts
// this many, and timeline_cap gives them more, up to kModeTimelineCap, as memory allows.
inline constexpr std::size_t kMinTimelineEntries = 256;

// How many records each requested trace may keep: the recorders' caps, fewer when the
// memory left under `limit_bytes` after the rest of the run does not hold them. Past the
// cap a trace drops later events and says so; the results are not affected.
struct TraceCaps {
  std::size_t trace_events = kMaxTraceRecords;
  std::size_t command_records = kMaxTraceRecords;
};
TraceCaps trace_caps(const Scenario& sc, uint64_t limit_bytes, const Recording& rec);

// How many mode changes each queue (or drive, for a drive policy) of an adaptive policy
// may keep: kModeTimelineCap, fewer when the memory left under `limit_bytes` does not
// hold them (it shares what is left with the traces asked for). Past the cap changes are
// counted (`timeline_dropped`), not kept; nothing else in the results is affected.
std::size_t timeline_cap(const Scenario& sc, uint64_t limit_bytes, const Recording& rec);

// An InputError naming the largest part's path when the estimate exceeds `limit_bytes`
// (or the model's 2^31 request ids).
std::optional<InputError> check_memory(const Scenario& sc, uint64_t limit_bytes, const Recording& rec);

}  // namespace nvmesim
