// Scenario loading: JSON document (or a fio job file) -> overrides -> validated Scenario,
// plus the fully resolved document (profiles inlined, defaults filled) for the results.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/input/input_error.h"
#include "app/input/input_limits.h"
#include "app/input/scenario_files.h"  // resolve_scenario_file, default_scenarios_dir
#include "app/scenario/memory_estimate.h"  // Recording
#include "vocab/scenario.h"

namespace nvmesim {

struct LoadOptions {
  std::string base_dir;                 // resolves relative profile/CDF paths
  std::vector<std::string> overrides;   // "path=value": /jobs/0/iodepth=64 or jobs.0.iodepth=64
  std::optional<uint64_t> seed;         // --seed: wins over the scenario and overrides
  // The estimated memory of the run (app/scenario/memory_estimate.h) must stay under this;
  // what the run records (trace buffers, the requests' times) counts when it will record it.
  uint64_t memory_limit = limits::kDefaultMemoryLimitBytes;
  Recording recording;
};

struct LoadedScenario {
  Scenario scenario;
  nlohmann::json resolved;  // what was run, as JSON; goes into the results
  // Legal but suspect, for the results' warnings: profile values outside the physical
  // range their profile documents (app/profile/profile_ranges.h).
  std::vector<std::string> warnings;
};

using LoadResult = std::variant<LoadedScenario, InputError>;

// A scenario JSON file, or a fio job file (*.fio / *.ini) run on the default testbed.
LoadResult load_scenario_file(const std::string& path, const LoadOptions& opts);
// A scenario given as a JSON document.
LoadResult load_scenario_json(nlohmann::json doc, const LoadOptions& opts);
// Replaces every profile given as a file name (the host, each drive's) by the file's
// content, as loading does; relative names resolve against `base_dir`, then the shipped
// scenarios directory.
std::optional<InputError> inline_profile_files(nlohmann::json& doc, const std::string& base_dir);
// A scenario's "published" block (the published figures it reproduces: metadata for
// `nvmesim report` and `nvmesim calibrate`, checked and not kept), errors at /published/...
std::optional<InputError> check_published(const nlohmann::json& published);
// Applies one "path=value" override (value parsed as JSON, else taken as a string).
std::optional<InputError> apply_override(nlohmann::json& doc, const std::string& assignment);
// The JSON Schema of scenario files (scenarios/schema.json, compiled in).
const nlohmann::json& scenario_schema();

}  // namespace nvmesim
