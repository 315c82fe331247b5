// Simulation speed: simulated I/Os and events per CPU-second on the default four-drive
// scenario, a one-drive QD32 case, the polled default and the peers' model (the nvmesim
// side of bench/peers.sh), and the heap bytes each in-flight I/O costs. The numbers are
// this file's output; compare them before and after a change to the hot path (see
// docs/performance.md).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <filesystem>
#include <string>
#include <variant>

#include "app/run.h"
#include "app/scenario_load.h"
#include "models/system.h"

namespace {

nvmesim::LoadedScenario load_loaded(const std::string& path, std::vector<std::string> overrides) {
  nvmesim::LoadOptions o;
  o.overrides = std::move(overrides);
  auto r = nvmesim::load_scenario_file(path, o);
  if (auto* e = std::get_if<nvmesim::InputError>(&r)) throw std::runtime_error(e->str());
  return std::get<nvmesim::LoadedScenario>(r);
}
nvmesim::Scenario load_file(const std::string& path, std::vector<std::string> overrides) {
  return load_loaded(path, std::move(overrides)).scenario;
}
nvmesim::Scenario load(std::vector<std::string> overrides) {
  return load_file(nvmesim::default_scenarios_dir() + "/default.json", std::move(overrides));
}

uint64_t inflight_capacity(const nvmesim::Scenario& sc) {
  uint64_t n = 0;
  for (const auto& js : sc.jobs) n += uint64_t{js.iodepth} * js.numjobs;
  return n;
}
// Heap bytes in use by a System of `sc` after a short run (its pending events, requests
// and queues at their running size), less its latency histograms: their buckets grow with
// the largest latency recorded, which a deeper queue raises, so they would not cancel out
// below although they are per job, not per I/O.
//
// The heap is malloc's chunks in use, those it mapped on their own included: a block at or
// over its mmap threshold (128 KiB at first) is mapped, not carved from the heap, and
// freeing it raises the threshold, so the same vector may be either in the next System.
std::size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}
double heap_of_run(nvmesim::Scenario sc) {
  sc.duration = nvmesim::Duration::ms(2);
  const std::size_t before = heap_in_use();
  nvmesim::System sys(sc);
  sys.run();
  std::size_t histograms = 0;
  for (const auto& j : sys.jobs())
    for (const auto& h : j.latency) histograms += h.heap_bytes();
  return static_cast<double>(heap_in_use()) - static_cast<double>(before) - static_cast<double>(histograms);
}
// Bytes per in-flight I/O: the heap of a run with every job at twice its iodepth minus
// that of the run as given, over the difference in I/Os in flight. What is per queue,
// job or drive cancels out; what remains is per I/O (request, pending event, ids in the
// job's and device's lists), growth slack of the containers included.
double bytes_per_inflight_io(const nvmesim::Scenario& sc) {
  nvmesim::Scenario twice = sc;
  for (auto& js : twice.jobs) js.iodepth *= 2;
  const double lo = heap_of_run(sc), hi = heap_of_run(twice);
  return (hi - lo) / static_cast<double>(inflight_capacity(twice) - inflight_capacity(sc));
}

// The memory cases run every job at an iodepth whose double still fits its queue (the
// default's 1024 is the queue depth: twice that would wait for tags, not be in flight).
nvmesim::Scenario at_iodepth(nvmesim::Scenario sc, uint32_t iodepth) {
  for (auto& js : sc.jobs) js.iodepth = iodepth;
  return sc;
}

void run_system(benchmark::State& state, const nvmesim::Scenario& sc, const nvmesim::Scenario& memory_case) {
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
  state.counters["bytes_per_inflight_io"] = bytes_per_inflight_io(memory_case);
}
void run_system(benchmark::State& state, const nvmesim::Scenario& sc) { run_system(state, sc, sc); }

void BM_DefaultScenario(benchmark::State& state) {
  // Measured window only, no warm-up: every simulated I/O is counted.
  static const nvmesim::Scenario sc = load({"warmup_us=0", "duration_us=50000"});
  run_system(state, sc, at_iodepth(sc, 256));
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
  run_system(state, sc, at_iodepth(sc, 256));
}
BENCHMARK(BM_DefaultScenarioPolled)->Unit(benchmark::kMillisecond);

// The peers' model (bench/peers.sh runs it against the bare loop, for the ratio), when the
// workplace's ../shared/bench/peers is there.
void BM_PeersModel(benchmark::State& state) {
  const std::string path = NVMESIM_PEERS_DIR "/peers_model.json";
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("no peers model at " NVMESIM_PEERS_DIR);
    for (auto _ : state) {}
    return;
  }
  static const nvmesim::Scenario sc = load_file(path, {"warmup_us=0"});
  // The memory case at QD 64 so that twice it still fits the queues.
  run_system(state, sc, at_iodepth(sc, 64));
}
BENCHMARK(BM_PeersModel)->Unit(benchmark::kMillisecond);

// The default scenario's independent partitions (two: the platform couples the drives of a socket) through run_scenario on
// state.range(0) threads: the rates are per wall-second (and the results are the same
// for any thread count).
void BM_DefaultScenarioThreads(benchmark::State& state) {
  static const nvmesim::LoadedScenario ls =
      load_loaded(nvmesim::default_scenarios_dir() + "/default.json", {"warmup_us=0", "duration_us=50000"});
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
