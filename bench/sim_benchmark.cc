// Simulation speed: simulated I/Os and events per CPU-second on the default four-drive
// scenario, a one-drive QD32 case, the polled default and the peers' model (the nvmesim
// side of bench/peers.sh), the large hosts (fifteen and sixteen drives: per CPU-second,
// per wall-second, peak RSS), how long building a System takes (start-up), and the heap
// bytes each in-flight I/O costs. The numbers are this file's output; compare them before
// and after a change to the hot path (see docs/performance.md).
//
// --quick (ctest sim_benchmark_runs): the large-host cases simulate 1 ms, so that the
// check that every case runs stays a few seconds.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <variant>

#include "app/run/run.h"
#include "app/scenario/scenario_load.h"
#include "bench/counted_heap.h"
#include "models/system/system.h"

namespace {

bool g_quick = false;  // --quick

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
// The heap is what operator new was asked for and not yet given back (counted_heap.h):
// request sizes, so the figure is the same on every machine. malloc's own view (mallinfo2)
// moved with what the process had allocated before and with where glibc mapped a block,
// and read 82 bytes here and 26 on CI's clean clone for the same binary and case.
std::size_t heap_in_use() { return nvmesim::bench::counted_heap_bytes(); }
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

// Peak RSS of the process (VmHWM), reset before a case: freed heap goes back to the system
// first, then the kernel's high-water mark restarts from what is resident now (writing 5
// to /proc/self/clear_refs). Where that is not allowed, the peak since the process began.
void reset_peak_rss() {
  malloc_trim(0);
  std::ofstream("/proc/self/clear_refs") << "5";
}
double peak_rss_mb() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  return 0;
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
  state.counters["sim_ios"] = benchmark::Counter(static_cast<double>(ios), benchmark::Counter::kAvgIterations);
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

// ---- Large hosts (issue 32 item 4): policy B's fifteen-drive layout
// (published/b_fifteen_drives_qd64.json: 15 drives of 128 I/O queues each, 1920 queues,
// 120 job clones at QD64 on two sockets) and the same with a sixteenth drive, a job on
// every one of the host's 128 cores (scenarios/sixteen_drives_qd64.json: 2048 queues).
std::string fifteen_drives() { return nvmesim::default_scenarios_dir() + "/published/b_fifteen_drives_qd64.json"; }
std::string sixteen_drives() { return nvmesim::default_scenarios_dir() + "/sixteen_drives_qd64.json"; }

// A large-host case runs `policy` for a window of 20 ms (1 ms with --quick) after a
// warm-up that is simulated but not timed: none for irq; for rate the published row's
// 200 ms, so that the window times the regime the row measures (98% of it in poll_hold;
// its first decision comes at ~73 ms, a window of 8192 completions per queue under
// interrupts, and at 80 ms three quarters of the window is still irq_measure).
struct LargeHostCase {
  nvmesim::LoadedScenario loaded;
  nvmesim::Duration warmup;
};
LargeHostCase large_host(const std::string& path, const std::string& policy) {
  const int64_t warmup_us = g_quick || policy != "rate" ? 0 : 200000;
  const int64_t window_us = g_quick ? 1000 : 20000;
  LargeHostCase c{load_loaded(path, {"policy.name=" + policy, "warmup_us=" + std::to_string(warmup_us),
                                     "warmup_covers_policy=false", "duration_us=" + std::to_string(window_us)}),
                  nvmesim::Duration::us(warmup_us)};
  return c;
}

// One System of the whole machine on this thread: simulated I/Os per CPU-second of its
// measured window (the build, the warm-up and the teardown untimed), and the process's
// peak RSS over the case.
void run_large_host(benchmark::State& state, const LargeHostCase& c) {
  const nvmesim::Scenario& sc = c.loaded.scenario;
  reset_peak_rss();
  uint64_t ios = 0, events = 0;
  std::optional<nvmesim::System> sys;
  for (auto _ : state) {
    state.PauseTiming();
    sys.emplace(sc);
    uint64_t events_at_window = 0;
    const double window_from = static_cast<double>(c.warmup.count_ns()) /
                               static_cast<double>((c.warmup + sc.duration).count_ns());
    bool timing = c.warmup == nvmesim::Duration::zero();
    if (timing) state.ResumeTiming();
    // The progress callback comes every simulated millisecond: the timing starts with the
    // first one at or past the warm-up's end.
    sys->run([&](double done) {
      if (!timing && done >= window_from) {
        timing = true;
        events_at_window = sys->events();
        state.ResumeTiming();
      }
    });
    if (!timing) state.ResumeTiming();
    state.PauseTiming();
    events += sys->events() - events_at_window;
    for (const auto& j : sys->jobs())
      for (uint64_t n : j.ios) ios += n;
    sys.reset();
    state.ResumeTiming();
  }
  state.counters["sim_ios_per_s"] = benchmark::Counter(static_cast<double>(ios), benchmark::Counter::kIsRate);
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["events_per_io"] = static_cast<double>(events) / static_cast<double>(ios ? ios : 1);
  state.counters["sim_ios"] = benchmark::Counter(static_cast<double>(ios), benchmark::Counter::kAvgIterations);
  state.counters["peak_rss_MB"] = peak_rss_mb();
}
// The same through run_scenario, as `nvmesim run --threads N` runs it (its partitions --
// the two sockets -- each a System, N at a time): simulated I/Os of the window per
// wall-second of the whole run, builds and warm-up included, and the peak RSS.
void run_large_host_threads(benchmark::State& state, const LargeHostCase& c) {
  nvmesim::RunOptions opts;
  opts.threads = static_cast<unsigned>(state.range(0));
  reset_peak_rss();
  uint64_t ios = 0;
  for (auto _ : state) {
    nvmesim::RunInfo info;
    benchmark::DoNotOptimize(nvmesim::run_scenario(c.loaded, opts, &info));
    ios += info.ios;
  }
  state.counters["sim_ios_per_s"] = benchmark::Counter(static_cast<double>(ios), benchmark::Counter::kIsRate);
  state.counters["peak_rss_MB"] = peak_rss_mb();
}

void BM_FifteenDrivesIrq(benchmark::State& state) {
  static const LargeHostCase c = large_host(fifteen_drives(), "irq");
  run_large_host(state, c);
  // At QD32 against QD64: twice it still fits the queues.
  state.counters["bytes_per_inflight_io"] = bytes_per_inflight_io(at_iodepth(c.loaded.scenario, 32));
}
BENCHMARK(BM_FifteenDrivesIrq)->Unit(benchmark::kMillisecond);
void BM_FifteenDrivesRate(benchmark::State& state) {
  static const LargeHostCase c = large_host(fifteen_drives(), "rate");
  run_large_host(state, c);
}
BENCHMARK(BM_FifteenDrivesRate)->Unit(benchmark::kMillisecond);
void BM_SixteenDrivesIrq(benchmark::State& state) {
  static const LargeHostCase c = large_host(sixteen_drives(), "irq");
  run_large_host(state, c);
  state.counters["bytes_per_inflight_io"] = bytes_per_inflight_io(at_iodepth(c.loaded.scenario, 32));
}
BENCHMARK(BM_SixteenDrivesIrq)->Unit(benchmark::kMillisecond);
void BM_FifteenDrivesIrqThreads(benchmark::State& state) {
  static const LargeHostCase c = large_host(fifteen_drives(), "irq");
  run_large_host_threads(state, c);
}
BENCHMARK(BM_FifteenDrivesIrqThreads)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
void BM_FifteenDrivesRateThreads(benchmark::State& state) {
  static const LargeHostCase c = large_host(fifteen_drives(), "rate");
  run_large_host_threads(state, c);
}
BENCHMARK(BM_FifteenDrivesRateThreads)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
void BM_SixteenDrivesIrqThreads(benchmark::State& state) {
  static const LargeHostCase c = large_host(sixteen_drives(), "irq");
  run_large_host_threads(state, c);
}
BENCHMARK(BM_SixteenDrivesIrqThreads)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// ---- Start-up (issue 32 item 2): building a System of the whole machine (topology,
// cores, drives, queues, jobs, request pool), nothing run, the teardown untimed; and
// loading the scenario file (profiles included) apart.
void build_system(benchmark::State& state, const nvmesim::Scenario& sc) {
  std::optional<nvmesim::System> sys;
  for (auto _ : state) {
    sys.emplace(sc);
    state.PauseTiming();
    sys.reset();
    state.ResumeTiming();
  }
}
void BM_BuildDefault(benchmark::State& state) {
  static const nvmesim::Scenario sc = load({});
  build_system(state, sc);
}
BENCHMARK(BM_BuildDefault)->Unit(benchmark::kMillisecond);
void BM_BuildFifteenDrives(benchmark::State& state) {
  static const nvmesim::Scenario sc = load_file(fifteen_drives(), {});
  build_system(state, sc);
}
BENCHMARK(BM_BuildFifteenDrives)->Unit(benchmark::kMillisecond);
void BM_BuildSixteenDrives(benchmark::State& state) {
  static const nvmesim::Scenario sc = load_file(sixteen_drives(), {});
  build_system(state, sc);
}
BENCHMARK(BM_BuildSixteenDrives)->Unit(benchmark::kMillisecond);
void BM_LoadFifteenDrives(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(load_loaded(fifteen_drives(), {}));
}
BENCHMARK(BM_LoadFifteenDrives)->Unit(benchmark::kMillisecond);

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

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) g_quick = true;
    else argv[kept++] = argv[i];
  }
  argc = kept;
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
