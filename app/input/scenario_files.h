// Where the files a scenario names are found: relative names resolve against the
// scenario's own directory, then the shipped scenarios directory (which also holds the
// default scenario and the profiles).
#pragma once

#include <string>

namespace nvmesim {

// A file a scenario names (a profile, a CDF, a fio job file): absolute, or relative to
// `base_dir` if it is there, else to the shipped scenarios directory.
std::string resolve_scenario_file(const std::string& base_dir, const std::string& file);
// Directory holding the shipped scenarios and profiles.
std::string default_scenarios_dir();

}  // namespace nvmesim
