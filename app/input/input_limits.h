// The limits on what the loaders accept, in one place (docs/input-limits.md states them).
// Each keeps a bad or hostile input from costing more than seconds and a bounded amount
// of memory: it is refused with an InputError (exit 2) instead.
#pragma once

#include <cstdint>

#include "vocab/time.h"

namespace nvmesim::limits {

// Any file the loaders read (scenario, profile, CDF, fio job file): regular files only,
// at most this size. The shipped ones are a few kB.
inline constexpr uint64_t kMaxInputFileBytes = 16u << 20;
// JSON nesting, checked while parsing and before anything walks a document recursively.
// A scenario needs 5 levels.
inline constexpr int kMaxJsonDepth = 64;
// Longest simulated warm-up and measured window each.
inline constexpr Duration kMaxRunDuration = Duration::s(3600);
// Default of --memory-limit: the estimated memory a run may use (requests, queue memory,
// drives, jobs, trace buffers), checked before anything is allocated.
inline constexpr uint64_t kDefaultMemoryLimitBytes = uint64_t{512} << 20;
// Upper end of --memory-limit.
inline constexpr uint64_t kMaxMemoryLimitBytes = uint64_t{1} << 40;
// Command ids, queue and job indexes are 32-bit in the model; far below that anyway.
inline constexpr uint64_t kMaxRequests = uint64_t{1} << 31;
// Array lengths of a scenario.
inline constexpr uint32_t kMaxDrives = 4096;
inline constexpr uint32_t kMaxJobs = 4096;

}  // namespace nvmesim::limits

namespace nvmesim::limits {

// A trace for --replay: larger than the other inputs (a 10 ms command trace of the
// default scenario is about 10 MB), read once before the run.
inline constexpr uint64_t kMaxReplayFileBytes = uint64_t{512} << 20;
// Commands a replay keeps in memory (about 100 bytes each with their simulated times).
inline constexpr uint64_t kMaxReplayCommands = uint64_t{1} << 22;

}  // namespace nvmesim::limits
