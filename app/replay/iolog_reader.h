// The replay reader of fio's iolog v3: "TIME FILE add|open|close" and
// "TIME FILE read|write|trim|sync|datasync OFFSET LENGTH", TIME in microseconds since the
// start of the run (fio's utime_since_now). Each file maps to a drive of the scenario, each
// I/O to the first job clone on that drive.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "app/input/input_error.h"
#include "app/replay/replay_target.h"

namespace nvmesim::replay {

// Reads `text` (its first line the "fio version 3 iolog" header) into `target`'s trace;
// `line_count` is set to the number of lines read.
std::optional<InputError> read_iolog(std::string_view text, ReplayTarget& target, uint32_t& line_count);

}  // namespace nvmesim::replay
