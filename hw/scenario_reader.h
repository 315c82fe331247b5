// A minimal reader of scenario JSON for the hw runner: the fields a drive run needs
// (name, seed, duration_us, warmup_us, queue_depth, policy, jobs[].rw/bs/iodepth/...),
// in the same format as scenarios/*.json; host and drive profiles are ignored (the
// drive is real). TODO(switch): use load_scenario_file from app/scenario_load.h once
// the app library can link into the static binary.
#pragma once

#include <string>

#include "models/scenario.h"

namespace nvmesim::hw {

// Throws std::runtime_error naming the file and field on bad input.
Scenario read_scenario(const std::string& path);

}  // namespace nvmesim::hw
