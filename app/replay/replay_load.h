// Reading a recorded trace for `nvmesim run --replay` (docs/trace-format.md, "Replay"):
// the per-command CSV of the simulator and the hw runner, or fio's iolog v3, detected
// from the first line, checked row by row and resolved against the scenario's drives,
// queues and jobs. Read once before the run, with a size cap; every problem is an
// InputError naming FILE:LINE and the column.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "app/input/input_error.h"
#include "models/workload/replay_trace.h"
#include "vocab/scenario.h"

namespace nvmesim {

struct ReplayLoadOptions {
  std::string path;
  bool service = false;      // --replay-service: device times from the trace
  std::string drive;         // --replay-drive: the drive a trace without drive identity maps to
  uint32_t block_bytes = 512;  // --replay-block-bytes: the trace's logical block size
};

std::variant<ReplayTrace, InputError> load_replay(const ReplayLoadOptions& opts, const Scenario& sc);
// The same, from text already read (tests, fuzzing); `opts.path` names it in messages.
std::variant<ReplayTrace, InputError> parse_replay(const std::string& text, const ReplayLoadOptions& opts,
                                                   const Scenario& sc);

}  // namespace nvmesim
