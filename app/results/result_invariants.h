// The laws every simulator run's results keep (docs/results.md, "Invariants"): counts
// conserved across aggregate, drives, queues and jobs; each core's time accounted once;
// every share of the window in [0, 1]; percentiles in order; a drive's completions within
// what its front end fetched and its queues held. A result that breaks one is a bug of
// the model (never of the input), so a run checks its own record (RunOptions) and the
// fuzz targets check every input they run.
#pragma once

#include <string>
#include <vector>

#include "app/results/run_record.h"
#include "vocab/scenario.h"

namespace nvmesim::results {

// Each law `r` breaks, as a sentence naming where (empty: none). `sc` is the scenario
// that ran (its window, queue depth and drive profiles).
std::vector<std::string> invariant_violations(const RunRecord& r, const Scenario& sc);

}  // namespace nvmesim::results
