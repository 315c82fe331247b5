// The readable summary the CLI prints after a run.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

namespace nvmesim {

void print_summary(std::ostream& os, const nlohmann::json& results);

}  // namespace nvmesim
