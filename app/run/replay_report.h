// Recorded vs simulated, command by command, for a replay (nvmesim run --replay): the
// per-command CSV written beside the results (--replay-diff) and the summary the results
// JSON carries under "replay" (docs/trace-format.md, "Replay").
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "models/system/system.h"
#include "models/workload/replay_trace.h"

namespace nvmesim {

nlohmann::json replay_summary(const ReplayTrace& trace, const System& sys);
void write_replay_diff(std::ostream& os, const ReplayTrace& trace, const System& sys);

}  // namespace nvmesim
