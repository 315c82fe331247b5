// What one System measured of every entity it holds: the records of its job clones,
// queues, drives and cores over the window, and the per-queue and per-drive figures they
// add up to. run.cc merges the partitions' records into the run's (merged) and adds the
// run-wide parts (limits, mode shares, warnings).
#pragma once

#include "app/results/run_record.h"
#include "models/system/system.h"

namespace nvmesim {

// Those a partition's run leaves idle read zero; the run-wide figures are not in it.
results::RunRecord measured_by(const System& sys);

}  // namespace nvmesim
