// Fuzz target: a scenario JSON document -> load_scenario_json -> System. The text is
// parsed as the CLI parses a scenario file (parse_json_text: comments allowed, nesting
// limit); relative profile paths resolve against the shipped scenarios/.
// The contract under test: any input gives a Scenario or an InputError; no exception
// escapes (the CLI would exit 1), no crash, no sanitizer report, no runaway time or memory.
#include <cstddef>
#include <cstdint>
#include <string>

#include "app/input/json_text.h"
#include "app/scenario/scenario_load.h"
#include "fuzz/exercise_loaded.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = nvmesim::parse_json_text(std::string(reinterpret_cast<const char*>(data), size));
  auto* doc = std::get_if<nlohmann::json>(&parsed);
  if (!doc) return 0;  // not JSON: the CLI's exit 2, not this target's subject
  auto loaded = nvmesim::load_scenario_json(std::move(*doc), {});
  if (auto* ok = std::get_if<nvmesim::LoadedScenario>(&loaded)) nvmesim::fuzz::exercise_loaded(std::move(*ok));
  return 0;
}
