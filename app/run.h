// Running a loaded scenario to its results document (docs/results.md is the contract).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "app/scenario_load.h"

namespace nvmesim {

struct RunOptions {
  std::function<void(double)> progress;  // fraction of simulated time done; may be empty
};

struct RunInfo {
  double wall_seconds = 0;
  uint64_t events = 0;
  uint64_t ios = 0;
};

// Runs the simulation. The result holds no wall-clock figure: the same scenario and seed
// give byte-identical dump_results() text. Wall time and speed go to `info`.
nlohmann::json run_scenario(const LoadedScenario& loaded, const RunOptions& opts = {},
                            RunInfo* info = nullptr);
// Canonical text of a results document (2-space indent, trailing newline).
std::string dump_results(const nlohmann::json& results);

}  // namespace nvmesim
