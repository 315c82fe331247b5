// scenarios/default.json, loaded once per process and taken in its resolved form
// (profiles inlined, defaults filled; it reloads to the same scenario): the base the
// override and fio targets build on, without a file read per execution -- reading the
// profile files on every load kept the override target at a few hundred executions/s.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <variant>

#include <nlohmann/json.hpp>

#include "app/scenario/scenario_load.h"

namespace nvmesim::fuzz {

inline const nlohmann::json& default_scenario() {
  static const nlohmann::json doc = [] {
    auto loaded = load_scenario_file(default_scenarios_dir() + "/default.json", {});
    if (auto* e = std::get_if<InputError>(&loaded)) {
      std::fprintf(stderr, "fuzz: scenarios/default.json does not load: %s\n", e->str().c_str());
      std::abort();
    }
    return std::get<LoadedScenario>(loaded).resolved;
  }();
  return doc;
}

}  // namespace nvmesim::fuzz
