// Small scenarios for tests, built in code, run in-process.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "app/run/run.h"
#include "app/scenario/scenario_load.h"

namespace nvmesim::testing {

// One drive with a constant-time device and a host where everything costs nothing:
// tests switch on what they need.
inline nlohmann::json ideal_scenario() {
  nlohmann::json host = {{"name", "ideal"}, {"cores", 4},
                         {"libaio", {{"syscall_ns", 0}, {"submit_per_io_ns", 0}, {"reap_per_io_ns", 0}, {"post_per_io_ns", 0}}},
                         {"io_uring", {{"syscall_ns", 0}, {"submit_per_io_ns", 0}, {"reap_per_io_ns", 0}, {"post_per_io_ns", 0}}}};
  for (const char* k : {"doorbell_mmio_ns", "irq_entry_ns", "irq_exit_ns", "irq_per_cqe_ns", "poll_per_cqe_ns",
                        "poll_empty_check_ns", "wakeup_ns", "context_switch_ns", "wakeup_latency_ns", "lazy_mask_ns",
                        "irq_disable_ns", "irq_enable_ns", "softirq_entry_ns", "hrtimer_arm_ns",
                        "hrtimer_expiry_ns", "cond_resched_ns"})
    host[k] = 0;
  host["poll_empty_check_ns"] = 1;  // what a polling loop charges at least (SimQueueEnv::poll_check)
  nlohmann::json dev = {{"name", "ideal"}, {"units", 4}, {"iops_max", 0}, {"link_bytes_per_s", 0},
                        {"read", {{"dist", "constant"}, {"mean_ns", 10000}}},
                        {"write", {{"dist", "constant"}, {"mean_ns", 10000}}},
                        {"sq_fetch_ns", 0}, {"cqe_post_ns", 0}, {"msix_delivery_ns", 0}, {"max_queue_depth", 65536}};
  return {{"name", "ideal"}, {"seed", 1}, {"duration_us", 100000}, {"warmup_us", 10000},
          {"queue_depth", 65536}, {"host", host},
          {"drives", {{{"name", "d0"}, {"profile", dev}}}},
          {"jobs", {{{"name", "j"}, {"iodepth", 1}, {"cpus_allowed", "0"}}}}};
}

inline LoadedScenario load_or_fail(const nlohmann::json& doc, std::vector<std::string> overrides = {}) {
  LoadOptions o;
  o.overrides = std::move(overrides);
  auto r = load_scenario_json(doc, o);
  if (auto* e = std::get_if<InputError>(&r)) {
    ADD_FAILURE() << e->str();
    return {};
  }
  return std::get<LoadedScenario>(r);
}

// Options of every run a test makes: the results' invariants are checked (a broken one
// throws, and the test fails), in Release builds too.
inline RunOptions checked() {
  RunOptions o;
  o.check_invariants = true;
  return o;
}

inline nlohmann::json run(const nlohmann::json& doc, std::vector<std::string> overrides = {}) {
  return run_scenario(load_or_fail(doc, std::move(overrides)), checked());
}

// The shipped default scenario with `overrides`; a load error fails the test.
inline LoadedScenario load_default(std::vector<std::string> overrides) {
  LoadOptions o;
  o.overrides = std::move(overrides);
  auto r = load_scenario_file(default_scenarios_dir() + "/default.json", o);
  if (auto* e = std::get_if<InputError>(&r)) {
    ADD_FAILURE() << e->str();
    return {};
  }
  return std::get<LoadedScenario>(r);
}

// The shipped default scenario, shortened so that a test runs in well under a second.
inline nlohmann::json default_short(std::vector<std::string> overrides = {}) {
  overrides.insert(overrides.begin(), {"duration_us=4000", "warmup_us=3000"});
  LoadedScenario ls = load_default(std::move(overrides));
  if (::testing::Test::HasFailure()) return {};  // the load failed: nothing to run
  return run_scenario(ls, checked());
}

}  // namespace nvmesim::testing
