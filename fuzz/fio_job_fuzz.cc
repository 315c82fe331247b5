// Fuzz target: a fio job file's text -> fio_text_to_scenario_patch; a patch that converts
// is laid over scenarios/default.json (as `nvmesim run job.fio` does) and loaded, and the
// System is built. Contract: a patch/Scenario or an InputError naming file:line, nothing else.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "app/scenario/fio_job.h"
#include "app/scenario/scenario_load.h"
#include "fuzz/default_scenario.h"
#include "fuzz/exercise_loaded.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto patch = nvmesim::fio_text_to_scenario_patch(text, "fuzz.fio");
  auto* p = std::get_if<nlohmann::json>(&patch);
  if (!p) return 0;
  nlohmann::json doc = nvmesim::fuzz::default_scenario();
  for (auto& [k, v] : p->items()) doc[k] = v;
  auto loaded = nvmesim::load_scenario_json(std::move(doc), {});
  if (auto* ok = std::get_if<nvmesim::LoadedScenario>(&loaded)) nvmesim::fuzz::exercise_loaded(std::move(*ok));
  return 0;
}
