// Fuzz target: a --replay trace's text (command-trace CSV or fio iolog v3) -> parse_replay
// against scenarios/default.json, with and without --replay-service. Contract: a
// ReplayTrace whose commands are in submit order on queues and jobs of the scenario, or an
// InputError naming FILE:LINE; nothing else. An inflight row has no CQE seen. A trace that
// ends within 2 ms is also replayed (run_scenario) with the results' invariants checked: a
// broken one throws, the target's crash. Building the default scenario's System for each
// costs ~0.1 s, so NVMESIM_FUZZ_LOAD_ONLY=1 stops after the parse (the CI's libFuzzer run);
// the regression replays run every corpus entry in full.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <variant>

#include "app/replay/replay_load.h"
#include "app/run/run.h"
#include "app/scenario/scenario_load.h"
#include "fuzz/default_scenario.h"
#include "models/host/topology.h"

namespace {

const nvmesim::LoadedScenario& loaded_scenario() {
  static const nvmesim::LoadedScenario ls = [] {
    auto loaded = nvmesim::load_scenario_json(nvmesim::fuzz::default_scenario(), {});
    if (!std::holds_alternative<nvmesim::LoadedScenario>(loaded)) std::abort();
    nvmesim::LoadedScenario l = std::get<nvmesim::LoadedScenario>(std::move(loaded));
    l.scenario.warmup = nvmesim::Duration::zero();
    l.scenario.duration = nvmesim::Duration::us(100);  // replay lengthens it to the trace's end
    return l;
  }();
  return ls;
}

const nvmesim::Scenario& scenario() { return loaded_scenario().scenario; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  static const nvmesim::Topology topo = nvmesim::Topology::of(scenario());
  for (bool service : {false, true}) {
    nvmesim::ReplayLoadOptions o;
    o.path = "fuzz.csv";
    o.service = service;
    auto r = nvmesim::parse_replay(text, o, scenario());
    if (auto* e = std::get_if<nvmesim::InputError>(&r)) {
      if (e->path.rfind("fuzz.csv:", 0) != 0 && e->path != "--replay-service") std::abort();
      continue;
    }
    const auto& t = std::get<nvmesim::ReplayTrace>(r);
    if (t.commands.empty()) std::abort();
    for (std::size_t i = 0; i < t.commands.size(); ++i) {
      const auto& c = t.commands[i];
      if (i > 0 && c.submit < t.commands[i - 1].submit) std::abort();
      if (c.queue >= topo.queue_count() || c.job >= topo.jobs().size() || c.bytes == 0) std::abort();
      // An inflight row (no CQE seen) not posted when its window closed is the device
      // model's to serve, not before the window's end; every other command has a device time.
      if (c.inflight && c.seen != nvmesim::Time::never()) std::abort();
      // With --replay-service every command has a device time but an inflight row not yet
      // posted, which waits for its window's close (t_ns: after its doorbell, or submit).
      const nvmesim::Time rung = c.doorbell == nvmesim::Time::never() ? c.submit : c.doorbell;
      if (service && c.device_time < nvmesim::Duration::zero() &&
          !(c.inflight && c.posted == nvmesim::Time::never() && c.post_not_before >= rung))
        std::abort();
      // unit_done_ns is checked to lie between the doorbell and the posting.
      if (service && c.known_ahead > c.device_time) std::abort();
    }
    nvmesim::Time last = nvmesim::Time::zero();
    for (const auto& c : t.commands) last = max(last, c.seen != nvmesim::Time::never() ? c.seen : c.submit);
    static const bool load_only = std::getenv("NVMESIM_FUZZ_LOAD_ONLY") != nullptr;
    if (load_only || last > nvmesim::Time::zero() + nvmesim::Duration::ms(2)) continue;
    nvmesim::RunOptions opts;
    opts.replay = &t;
    opts.threads = 1;
    opts.check_invariants = true;
    (void)nvmesim::run_scenario(loaded_scenario(), opts).dump();
  }
  return 0;
}
