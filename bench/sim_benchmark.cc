// Simulation speed: simulated I/Os and events per wall-second on the default four-drive
// scenario and on a one-drive QD32 case. The numbers are this file's output; compare
// them before and after a change to the hot path (see docs/performance.md).
#include <benchmark/benchmark.h>

#include <string>
#include <variant>

#include "app/run.h"
#include "app/scenario_load.h"
#include "models/system.h"

namespace {

nvmesim::LoadedScenario load_loaded(std::vector<std::string> overrides) {
  nvmesim::LoadOptions o;
  o.overrides = std::move(overrides);
  auto r = nvmesim::load_scenario_file(nvmesim::default_scenarios_dir() + "/default.json", o);
  if (auto* e = std::get_if<nvmesim::InputError>(&r)) throw std::runtime_error(e->str());
  return std::get<nvmesim::LoadedScenario>(r);
}

nvmesim::Scenario load(std::vector<std::string> overrides) { return load_loaded(std::move(overrides)).scenario; }

void run_system(benchmark::State& state, const nvmesim::Scenario& sc) {
  uint64_t ios = 0, events = 0;
  for (auto _ : state) {
    nvmesim::System sys(sc);
    sys.run();
    events += sys.events();
    for (const auto& j : sys.jobs())
      for (uint64_t n : j.ios) ios += n;
  }
  state.counters["sim_ios_per_s"] = benchmark::Counter(static_cast<double>(ios), benchmark::Counter::kIsRate);
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["events_per_io"] = static_cast<double>(events) / static_cast<double>(ios ? ios : 1);
}

void BM_DefaultScenario(benchmark::State& state) {
  // Measured window only, no warm-up: every simulated I/O is counted.
  static const nvmesim::Scenario sc = load({"warmup_us=0", "duration_us=50000"});
  run_system(state, sc);
}
BENCHMARK(BM_DefaultScenario)->Unit(benchmark::kMillisecond);

void BM_OneDriveQD32(benchmark::State& state) {
  static const nvmesim::Scenario sc = load(
      {"warmup_us=0", "duration_us=200000",
       "jobs=[{\"name\":\"qd32\",\"iodepth\":32,\"cpus_allowed\":\"0\",\"drives\":[0]}]"});
  run_system(state, sc);
}
BENCHMARK(BM_OneDriveQD32)->Unit(benchmark::kMillisecond);

void BM_DefaultScenarioPolled(benchmark::State& state) {
  static const nvmesim::Scenario sc = load({"warmup_us=0", "duration_us=50000", "policy.name=poll"});
  run_system(state, sc);
}
BENCHMARK(BM_DefaultScenarioPolled)->Unit(benchmark::kMillisecond);

// The default scenario's four independent partitions through run_scenario on
// state.range(0) threads: the rates are per wall-second (and the results are the same
// for any thread count).
void BM_DefaultScenarioThreads(benchmark::State& state) {
  static const nvmesim::LoadedScenario ls = load_loaded({"warmup_us=0", "duration_us=50000"});
  nvmesim::RunOptions opts;
  opts.threads = static_cast<unsigned>(state.range(0));
  uint64_t ios = 0, events = 0;
  for (auto _ : state) {
    nvmesim::RunInfo info;
    benchmark::DoNotOptimize(nvmesim::run_scenario(ls, opts, &info));
    ios += info.ios;
    events += info.events;
  }
  state.counters["sim_ios_per_s"] = benchmark::Counter(static_cast<double>(ios), benchmark::Counter::kIsRate);
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DefaultScenarioThreads)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
