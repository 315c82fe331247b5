// Fuzz target: `--set` overrides. The input is split at newlines into "path=value"
// strings, applied to scenarios/default.json as the CLI applies them, then the System is
// built. Same contract as the JSON target: a Scenario or an InputError, nothing else.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/scenario/scenario_load.h"
#include "fuzz/default_scenario.h"
#include "fuzz/exercise_loaded.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nvmesim::LoadOptions opts;
  std::string text(reinterpret_cast<const char*>(data), size);
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    opts.overrides.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  auto loaded = nvmesim::load_scenario_json(nvmesim::fuzz::default_scenario(), opts);
  if (auto* ok = std::get_if<nvmesim::LoadedScenario>(&loaded)) nvmesim::fuzz::exercise_loaded(std::move(*ok));
  return 0;
}
