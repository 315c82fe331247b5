// Synthetic recovery: calibrations of measurements the simulator made at a known truth,
// each checked the way a user reads the report: every parameter's truth lies inside its
// 95% profile interval, or the report says the parameter is not identifiable. The cases
// cover one to four parameters, pairs that trade against each other (interrupt entry and
// exit, which the data see mostly as their sum) and a parameter the data cannot see.
//
// Each measurement is the simulator's run at the truth with calibrate's seed (common
// random numbers) times exp(noise N(0,1)) from a seeded stream: the stated noise is then
// the measurement's noise, and a nominal 95% interval should cover the truth about 95% of
// the time. One case measures with another seed (run-to-run noise on top).
//
// Per commit each case runs once, on the measurement without noise (the truth must be
// inside every interval it reports). NVMESIM_RECOVERY_SEEDS=N runs N noise seeds per case
// and prints the coverage (the sweep behind docs/calibrating.md's figures: `cmake
// --build build --target calibration_coverage`).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/calibration/calibrate.h"
#include "app/calibration/calibration_spec.h"
#include "app/calibration/measured_metrics.h"
#include "app/run/run.h"
#include "app/scenario/scenario_load.h"
#include "sim/rng.h"

namespace nvmesim {
namespace {

using nlohmann::json;

// One drive, one io_uring job on one core, plain interrupts; short runs.
json testbed(int iodepth, const std::string& rw, int duration_us) {
  json s = json::parse(R"({"name": "recovery", "seed": 1, "duration_us": 20000, "warmup_us": 2000,
    "host": "profiles/host_testbed_a.json", "queue_depth": 1024,
    "drives": [{"name": "nvme0", "profile": "profiles/solidigm_sb5ph27x038t.json"}],
    "policy": {"name": "irq"},
    "jobs": [{"name": "j", "ioengine": "io_uring", "rw": "randread", "bs": "4k", "iodepth": 1,
              "cpus_allowed": "0", "drives": ["nvme0"]}]})");
  s["jobs"][0]["iodepth"] = iodepth;
  s["jobs"][0]["rw"] = rw;
  s["duration_us"] = duration_us;
  return s;
}

struct Param {
  std::string path;  // as the spec writes it (/drives/*/profile/...)
  double min, max, truth;
};

struct Case {
  std::string name;
  std::vector<Param> params;
  std::vector<int> depths;
  std::vector<std::string> metrics;
  double noise = 0.02;
  uint64_t measure_seed = 1;  // the simulator's seed for the measurement (calibrate uses 1)
  std::string rw = "randread";
  int duration_us = 20000;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"service_mean", {{"/drives/*/profile/read/mean_ns", 40000, 150000, 85000}}, {1, 4}, {"iops", "lat_p50"}},
      {"service_mean_and_sigma",
       {{"/drives/*/profile/read/mean_ns", 40000, 150000, 85000}, {"/drives/*/profile/read/sigma", 0.1, 0.8, 0.4}},
       {1, 4},
       {"iops", "lat_p50", "lat_p99"}},
      // Issue 30's case: entry and exit trade; only their sum is in these data.
      {"irq_entry_exit_pair",
       {{"/host/irq_entry_ns", 100, 3000, 600}, {"/host/irq_exit_ns", 100, 3000, 400}},
       {1, 2, 4, 8, 16, 32},
       {"iops", "lat_p50", "lat_p99", "cpu_hardirq"}},
      {"irq_entry_exit_other_bounds",
       {{"/host/irq_entry_ns", 300, 1500, 600}, {"/host/irq_exit_ns", 200, 1200, 400}},
       {1, 2, 4, 8, 16, 32},
       {"iops", "lat_p50", "lat_p99", "cpu_hardirq"}},
      {"irq_entry_exit_iops_only",
       {{"/host/irq_entry_ns", 100, 3000, 600}, {"/host/irq_exit_ns", 100, 3000, 400}},
       {1, 4, 16},
       {"iops"}},
      // The job only reads: the drive's write service time is invisible.
      {"unseen_write_mean",
       {{"/drives/*/profile/read/mean_ns", 40000, 150000, 85000},
        {"/drives/*/profile/write/mean_ns", 5000, 50000, 20000}},
       {1, 4},
       {"iops", "lat_p50"}},
      {"irq_per_cqe", {{"/host/irq_per_cqe_ns", 200, 1500, 900}}, {1, 8}, {"iops", "cpu_hardirq"}},
      {"service_and_entry",
       {{"/drives/*/profile/read/mean_ns", 40000, 150000, 85000},
        {"/drives/*/profile/read/sigma", 0.1, 0.8, 0.4},
        {"/host/irq_entry_ns", 100, 3000, 800}},
       {1, 4, 16},
       {"iops", "lat_p50", "lat_p99", "cpu_hardirq"}},
      {"four_parameters",
       {{"/drives/*/profile/read/mean_ns", 40000, 150000, 80000},
        {"/drives/*/profile/read/sigma", 0.1, 0.8, 0.4},
        {"/host/irq_entry_ns", 100, 3000, 1100},
        {"/host/irq_exit_ns", 100, 3000, 500}},
       {1, 2, 4},
       {"iops", "lat_p50", "lat_p99", "cpu_hardirq"}},
      {"io_uring_submit_and_reap",
       {{"/host/io_uring/submit_per_io_ns", 100, 1500, 500}, {"/host/io_uring/reap_per_io_ns", 20, 600, 150}},
       {1, 8, 32},
       {"iops", "lat_p50", "cpu_app"}},
      // Measured with another seed than calibrate's: the simulator's run-to-run spread
      // (counting noise in IOPS, sampling in p50) on top of the stated noise.
      {"service_mean_other_seed",
       {{"/drives/*/profile/read/mean_ns", 40000, 150000, 85000}},
       {1, 4},
       {"iops", "lat_p50"},
       0.02,
       7,
       "randread",
       40000},
  };
  return kCases;
}

// The case's measurements at its truth, with noise from stream `noise_seed`.
json spec_of(const Case& c, uint64_t noise_seed) {
  const auto index = static_cast<uint64_t>(&c - cases().data());
  sim::Rng noise(noise_seed, sim::stream_key("recovery noise", index));
  json spec = {{"format", "nvmesim-calibrate/1"}, {"name", c.name},  {"seed", 1},   {"starts", 2},
               {"max_evaluations", 40},           {"neighbourhood", 0}, {"noise", c.noise}, {"fitted_on", "2026-12-03"}};
  std::vector<std::string> sets;
  for (const Param& p : c.params) {
    std::string concrete;  // the path on drive 0
    for (char ch : p.path) concrete.push_back(ch == '*' ? '0' : ch);
    sets.push_back(concrete + "=" + json(p.truth).dump());
    spec["parameters"].push_back({{"path", p.path}, {"min", p.min}, {"max", p.max}});
  }
  for (int qd : c.depths) {
    LoadOptions o;
    o.overrides = sets;
    o.seed = c.measure_seed;
    auto loaded = load_scenario_json(testbed(qd, c.rw, c.duration_us), o);
    EXPECT_TRUE(std::holds_alternative<LoadedScenario>(loaded)) << std::get<InputError>(loaded).str();
    MetricValues m = metrics_of_results(run_scenario(std::get<LoadedScenario>(loaded)));
    json measured;
    // Noise seed 0: the measurement without noise (the stated noise still weights it).
    for (const std::string& k : c.metrics)
      measured[k] = m.at(k) * (noise_seed == 0 ? 1.0 : std::exp(c.noise * noise.normal()));
    spec["runs"].push_back({{"name", "qd" + std::to_string(qd)},
                            {"scenario", testbed(qd, c.rw, c.duration_us)},
                            {"measured", measured},
                            {"metrics", c.metrics}});
  }
  return spec;
}

json calibrated(const Case& c, uint64_t noise_seed) {
  auto loaded = load_calibration_spec(spec_of(c, noise_seed), ".");
  EXPECT_TRUE(std::holds_alternative<CalibrationSpec>(loaded)) << std::get<InputError>(loaded).str();
  auto result = calibrate(std::get<CalibrationSpec>(loaded), "2026-12-03");
  EXPECT_TRUE(std::holds_alternative<CalibrationOutcome>(result)) << std::get<InputError>(result).str();
  return std::get<CalibrationOutcome>(result).report;
}

bool inside(const json& p, double truth) {
  return p["profile_interval"][0].get<double>() <= truth && truth <= p["profile_interval"][1].get<double>();
}

class Recovery : public ::testing::TestWithParam<std::size_t> {};

// The suite's promise, per case: the truth inside the 95% profile interval, or the
// parameter reported not identifiable.
TEST_P(Recovery, TruthInsideTheIntervalOrNotIdentifiable) {
  const Case& c = cases()[GetParam()];
  const char* env = std::getenv("NVMESIM_RECOVERY_SEEDS");
  const int seeds = env ? std::max(1, std::atoi(env)) : 1;
  int intervals = 0, covered = 0, identified = 0, identified_covered = 0;
  // Per commit: the noise-free measurement (seed 0), where the truth's cost is the
  // quantisation's alone and a 95% interval must hold it; a noisy seed misses 5% of the
  // time by design, which the sweep measures.
  const int first = env ? 1 : 0, last = env ? seeds : 0;
  for (int seed = first; seed <= last; ++seed) {
    const json report = calibrated(c, static_cast<uint64_t>(seed));
    const json& params = report["parameters"];
    ASSERT_EQ(params.size(), c.params.size());
    for (std::size_t i = 0; i < c.params.size(); ++i) {
      const json& p = params[i];
      const bool in = inside(p, c.params[i].truth);
      const bool ident = p["identifiable"].get<bool>();
      ++intervals;
      covered += in ? 1 : 0;
      identified += ident ? 1 : 0;
      identified_covered += ident && in ? 1 : 0;
      if (!env) {
        EXPECT_TRUE(in || !ident) << c.name << " " << p["path"] << " truth " << c.params[i].truth << " value "
                                  << p["value"] << " interval " << p["profile_interval"] << "\n"
                                  << report["uncertainty"].dump(1) << "cost " << report["cost"] << ", profile points " << p["profile_points"];
      }
    }
  }
  if (env) {
    std::printf("coverage %-28s seeds %d: %d/%d intervals cover the truth; identifiable %d, of those %d cover\n",
                c.name.c_str(), seeds, covered, intervals, identified, identified_covered);
    std::fflush(stdout);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Recovery, ::testing::Range<std::size_t>(0, 11),
                         [](const ::testing::TestParamInfo<std::size_t>& info) { return cases()[info.param].name; });

// Issue 30's case, checked for what the report must not claim: before, both parameters
// came out "identifiable" with the truth 3-9 standard errors away. Now the two are never
// both pinned alone (only their sum is in the data), whatever is pinned holds the truth
// (a parameter alone or a combination), the difference is never pinned, and where the
// report profiles combinations it says the difference is not identifiable. On the
// noise-free measurement, as the suite's per-commit check: at a noisy seed a 95% interval
// misses 5% of the time by design, which the coverage sweep measures. (With the wider
// bounds neither is pinned alone; with the narrower ones the entry cost can be pinned
// inside them: which one happens moved with the drive model, so it is not asserted.)
TEST(RecoveryStatements, TheEntryExitPairIsNotIdentifiedAndNothingFalseIsPinned) {
  for (std::size_t k : {std::size_t{2}, std::size_t{3}}) {
    const Case& c = cases()[k];
    const json report = calibrated(c, 0);
    SCOPED_TRACE(c.name + "\n" + report["uncertainty"].dump(1) + "\n" + report["parameters"].dump());
    const json& params = report["parameters"];
    int identified = 0;
    for (std::size_t i = 0; i < 2; ++i) {
      if (!params[i]["identifiable"].get<bool>()) continue;
      ++identified;
      EXPECT_TRUE(inside(params[i], c.params[i].truth)) << params[i]["path"];
    }
    EXPECT_LE(identified, 1);
    if (k == 2) {
      EXPECT_EQ(identified, 0) << "the wide bounds pin neither";
    }
    const json& combos = report["uncertainty"]["combinations"];
    int pinned = 0;
    for (const json& comb : combos) {
      const double da = comb["direction"]["/host/irq_entry_ns"].get<double>();
      const double db = comb["direction"]["/host/irq_exit_ns"].get<double>();
      if (!comb["pinned"].get<bool>()) continue;
      ++pinned;
      EXPECT_GT(da * db, 0) << "a pinned difference: " << comb["text"];
      const double truth = comb["coefficients"]["/host/irq_entry_ns"].get<double>() * c.params[0].truth +
                           comb["coefficients"]["/host/irq_exit_ns"].get<double>() * c.params[1].truth;
      EXPECT_LE(comb["profile_interval"][0].get<double>(), truth) << comb["text"];
      EXPECT_GE(comb["profile_interval"][1].get<double>(), truth) << comb["text"];
    }
    EXPECT_LE(pinned, 1);
    if (combos.empty()) continue;
    bool difference_said = false;
    for (const json& t : report["uncertainty"]["statements"])
      difference_said = difference_said || t.get<std::string>().find("is not identifiable") != std::string::npos;
    EXPECT_TRUE(difference_said);
  }
}

// A parameter the data cannot see: the least cost never rises, both ends are its bounds.
TEST(RecoveryStatements, AnUnseenParameterSpansItsBounds) {
  const Case& c = cases()[5];
  const json report = calibrated(c, 1);
  const json& unseen = report["parameters"][1];
  EXPECT_FALSE(unseen["identifiable"].get<bool>());
  EXPECT_EQ(unseen["profile_interval_ends"], json::array({"bound", "bound"}));
  EXPECT_EQ(unseen["profile_interval"], json::array({5000, 50000}));
  const json& seen = report["parameters"][0];
  EXPECT_TRUE(seen["identifiable"].get<bool>()) << seen;
  EXPECT_TRUE(inside(seen, 85000)) << seen;
}

}  // namespace
}  // namespace nvmesim
