// What every fuzz target does with a scenario that loaded: serialise it as the results
// file does, build the System it describes and run it for a short while through
// run_scenario with the results' invariants checked (app/results/result_invariants.h), so sizing
// and allocation bugs (a queue depth times numjobs that wraps, a pool sized from an
// unchecked count) and wrong answers (a share of the window over 1, counts that do not add
// up) show up, not only parse bugs. A broken invariant throws, and the uncaught exception
// is the target's crash. The run is 1 us of warm-up and 4 us measured: a scenario of zero
// costs and 1 ns services does ~0.5M events per simulated us per job, and every input must
// finish in seconds under ASan. Building the default scenario's System costs ~0.1 s, so
// NVMESIM_FUZZ_LOAD_ONLY=1 stops after the loader: CI's fixed-count runs of the override,
// fio and replay targets use it for speed; the long runs are in full mode
// (docs/reliability.md, "Long runs").
#pragma once

#include <cstdlib>

#include "app/run/run.h"
#include "app/scenario/scenario_load.h"

namespace nvmesim::fuzz {

inline void exercise_loaded(LoadedScenario loaded) {
  // The resolved scenario goes into every results file: it must serialise.
  (void)loaded.resolved.dump();
  static const bool load_only = std::getenv("NVMESIM_FUZZ_LOAD_ONLY") != nullptr;
  if (load_only) return;
  loaded.scenario.warmup = Duration::us(1);
  loaded.scenario.duration = Duration::us(4);
  loaded.scenario.warmup_given.reset();
  RunOptions opts;
  opts.threads = 1;
  opts.check_invariants = true;
  (void)run_scenario(loaded, opts).dump();
}

}  // namespace nvmesim::fuzz
