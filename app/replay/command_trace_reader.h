// The replay reader of the per-command CSV the simulator and the hw runner write
// (docs/trace-format.md): its header's columns, then each row checked field by field and
// its times against each other, resolved to a drive, queue and job clone.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "app/input/input_error.h"
#include "app/replay/replay_target.h"

namespace nvmesim::replay {

// Reads `text` (its first line the header) into `target`'s trace; `line_count` is set to
// the line of the last record read.
std::optional<InputError> read_command_trace(std::string_view text, ReplayTarget& target, uint32_t& line_count);

}  // namespace nvmesim::replay
