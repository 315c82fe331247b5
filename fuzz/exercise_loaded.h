// What every fuzz target does with a scenario that loaded: serialise it as the results
// file does, build the System it describes and run it for one simulated microsecond, so
// sizing and allocation bugs (a queue depth times numjobs that wraps, a pool sized from
// an unchecked count) show up, not only parse bugs. Building the default scenario's
// System costs ~0.1 s, so NVMESIM_FUZZ_LOAD_ONLY=1 stops after the loader: the long runs
// use it for speed (docs/reliability.md).
#pragma once

#include <cstdlib>

#include "app/scenario_load.h"
#include "models/system.h"

namespace nvmesim::fuzz {

inline void exercise_loaded(LoadedScenario loaded) {
  // The resolved scenario goes into every results file: it must serialise.
  (void)loaded.resolved.dump();
  static const bool load_only = std::getenv("NVMESIM_FUZZ_LOAD_ONLY") != nullptr;
  if (load_only) return;
  loaded.scenario.warmup = Duration::zero();
  loaded.scenario.duration = Duration::us(1);
  System sys(loaded.scenario);
  sys.run();
}

}  // namespace nvmesim::fuzz
