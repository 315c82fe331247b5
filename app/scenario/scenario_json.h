// A Scenario back to JSON: every field with its value, in the input's own key names, so
// the resolved scenario in the results can be loaded again and gives the same run.
#pragma once

#include <nlohmann/json.hpp>

#include "vocab/scenario.h"

namespace nvmesim {

nlohmann::json scenario_to_json(const Scenario& sc);

}  // namespace nvmesim
