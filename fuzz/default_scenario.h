// scenarios/default.json, parsed once per process: the base the override and fio targets
// build on, without a file read per execution.
#pragma once

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/scenario_load.h"

namespace nvmesim::fuzz {

inline const nlohmann::json& default_scenario() {
  static const nlohmann::json doc = [] {
    std::ifstream in(default_scenarios_dir() + "/default.json");
    return nlohmann::json::parse(in, nullptr, true, /*ignore_comments=*/true);
  }();
  return doc;
}

}  // namespace nvmesim::fuzz
