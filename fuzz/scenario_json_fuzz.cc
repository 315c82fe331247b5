// Fuzz target: a scenario JSON document -> load_scenario_json -> System. Relative profile
// paths resolve against the shipped scenarios/, so the seed corpus's references load.
// The contract under test: any input gives a Scenario or an InputError; no exception
// escapes (the CLI would exit 1), no crash, no sanitizer report, no runaway time or memory.
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "app/scenario_load.h"
#include "fuzz/exercise_loaded.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Parsed like the CLI parses a scenario file (comments allowed); not JSON is not our target.
  auto doc = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false,
                                   /*ignore_comments=*/true);
  if (doc.is_discarded()) return 0;
  auto loaded = nvmesim::load_scenario_json(std::move(doc), {});
  if (auto* ok = std::get_if<nvmesim::LoadedScenario>(&loaded)) nvmesim::fuzz::exercise_loaded(std::move(*ok));
  return 0;
}
