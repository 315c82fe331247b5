// Shipped profiles name the source of every number, and the distributions they may use
// draw what they claim.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/run/run.h"
#include "app/scenario/scenario_load.h"
#include "models/device/service_time.h"
#include "policies/registry.h"
#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {
namespace fs = std::filesystem;

TEST(Profiles, EveryNumberNamesItsSourceOrSaysAssumed) {
  int checked = 0;
  for (const auto& e : fs::directory_iterator(default_scenarios_dir() + "/profiles")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    auto doc = nlohmann::json::parse(in);
    ASSERT_TRUE(doc.contains("comment")) << e.path();
    ASSERT_TRUE(doc.contains("sources")) << e.path();
    for (const auto& [key, value] : doc.items()) {
      if (key == "name" || key == "comment" || key == "sources" || key == "ranges") continue;
      EXPECT_TRUE(doc["sources"].contains(key)) << e.path().filename() << ": no source for " << key;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

// The part of a group's source (one text for a profile object such as "completion_ipi")
// that is about `leaf`: from "leaf:" to the next "sibling:", or all of it.
std::string source_of(const std::string& group_text, const std::string& leaf, const nlohmann::json& group) {
  const std::size_t from = group_text.find(leaf + ":");
  if (from == std::string::npos) return group_text;
  std::size_t to = group_text.size();
  for (const auto& [sibling, v] : group.items())
    if (sibling != leaf)
      if (std::size_t at = group_text.find(sibling + ":", from + 1); at != std::string::npos && at > from) to = std::min(to, at);
  return group_text.substr(from, to - from);
}

// Every number a source calls assumed has its physical range in "ranges" (by its pointer),
// and lies inside it; a mechanism switched off (0, its source says OFF) has no value to
// range. Every range names a number of its profile.
TEST(Profiles, EveryAssumedNumberHasAPhysicalRangeThatHoldsIt) {
  int ranged = 0;
  for (const auto& e : fs::directory_iterator(default_scenarios_dir() + "/profiles")) {
    if (e.path().extension() != ".json") continue;
    SCOPED_TRACE(e.path().filename().string());
    std::ifstream in(e.path());
    const auto doc = nlohmann::json::parse(in);
    ASSERT_TRUE(doc.contains("ranges"));
    const auto& ranges = doc["ranges"];
    auto check = [&](const std::string& ptr, const nlohmann::json& value, const std::string& source) {
      if (!value.is_number()) return;
      const bool assumed = source.find("assumed") != std::string::npos || source.find("ASSUMED") != std::string::npos;
      if (!assumed || (value == 0 && source.rfind("OFF", 0) == 0)) return;
      ASSERT_TRUE(ranges.contains(ptr)) << ptr << " is assumed (" << source.substr(0, 80) << "...) with no range";
      const double v = value.get<double>(), lo = ranges[ptr][0].get<double>(), hi = ranges[ptr][1].get<double>();
      EXPECT_LT(lo, hi) << ptr;
      EXPECT_TRUE(lo <= v && v <= hi) << ptr << " = " << v << " outside [" << lo << ", " << hi << "]";
      ++ranged;
    };
    for (const auto& [key, value] : doc.items()) {
      if (key == "name" || key == "comment" || key == "sources" || key == "ranges") continue;
      const std::string text = doc["sources"].value(key, "");
      if (value.is_object()) {
        for (const auto& [leaf, v] : value.items()) check("/" + key + "/" + leaf, v, source_of(text, leaf, value));
      } else {
        check("/" + key, value, text);
      }
    }
    for (const auto& [ptr, range] : ranges.items()) {
      EXPECT_TRUE(doc.contains(nlohmann::json::json_pointer(ptr)) && doc[nlohmann::json::json_pointer(ptr)].is_number())
          << ptr << " names no number";
      EXPECT_TRUE(range.is_array() && range.size() == 2) << ptr;
    }
  }
  EXPECT_GT(ranged, 60);  // one host profile and two drive profiles
}

// The shipped scenarios load with every profile value inside its range: no warnings.
TEST(Profiles, ShippedScenariosHaveNoValueOutsideItsRange) {
  std::vector<fs::path> files{default_scenarios_dir() + "/default.json"};
  for (const auto& e : fs::directory_iterator(default_scenarios_dir() + "/published")) files.push_back(e.path());
  for (const auto& f : files) {
    auto r = load_scenario_file(f.string(), LoadOptions{});
    ASSERT_TRUE(std::holds_alternative<LoadedScenario>(r)) << f << ": " << std::get<InputError>(r).str();
    EXPECT_TRUE(std::get<LoadedScenario>(r).warnings.empty()) << f << ": " << std::get<LoadedScenario>(r).warnings[0];
  }
}

TEST(Profiles, MalformedRangesAreInputErrorsNamingTheirKey) {
  struct Case {
    nlohmann::json ranges;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{1, 2}, "/host/ranges: must be an object of [lo, hi] by the pointer of a number in this profile"},
      {{{"/nope", {1, 2}}}, "/host/ranges/~1nope: \"/nope\" names no number of this profile"},
      {{{"irq_entry_ns", {1, 2}}}, "/host/ranges/irq_entry_ns: \"irq_entry_ns\" names no number of this profile"},
      {{{"", {1, 2}}}, "/host/ranges/: \"\" names no number of this profile"},
      {{{"/name", {1, 2}}}, "/host/ranges/~1name: \"/name\" names no number of this profile"},
      {{{"/libaio", {1, 2}}}, "/host/ranges/~1libaio: \"/libaio\" names no number of this profile"},
      {{{"/ranges/x", {1, 2}}}, "/host/ranges/~1ranges~1x: \"/ranges/x\" names no number of this profile"},
      {{{"/libaio~2/syscall_ns", {1, 2}}}, "/host/ranges/~1libaio~02~1syscall_ns: \"/libaio~2/syscall_ns\" names no number of this profile"},
      {{{"/irq_entry_ns", {1}}}, "/host/ranges/~1irq_entry_ns: must be [lo, hi], two numbers, got [1]"},
      {{{"/irq_entry_ns", {1, "x"}}}, "/host/ranges/~1irq_entry_ns: must be [lo, hi], two numbers, got [1,\"x\"]"},
      {{{"/irq_entry_ns", 5}}, "/host/ranges/~1irq_entry_ns: must be [lo, hi], two numbers, got 5"},
      {{{"/irq_entry_ns", {9, 3}}}, "/host/ranges/~1irq_entry_ns: must be [lo, hi] with lo <= hi, got [9,3]"},
  };
  for (const Case& c : cases) {
    auto doc = testing::ideal_scenario();
    doc["host"]["ranges"] = c.ranges;
    auto r = load_scenario_json(doc, LoadOptions{});
    ASSERT_TRUE(std::holds_alternative<InputError>(r)) << c.ranges.dump();
    EXPECT_EQ(std::get<InputError>(r).str().substr(0, c.error.size()), c.error) << std::get<InputError>(r).str();
  }
  auto doc = testing::ideal_scenario();
  doc["drives"][0]["profile"]["ranges"] = {{"/read/dist", {1, 2}}};
  auto r = load_scenario_json(doc, LoadOptions{});
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_EQ(std::get<InputError>(r).str(),
            "/drives/0/profile/ranges/~1read~1dist: \"/read/dist\" names no number of this profile (a JSON pointer such as "
            "\"/irq_entry_ns\" or \"/read/mean_ns\")");
}

// A distribution's parameter given to a distribution that does not use it is refused,
// naming the distributions that take it: sigma on a constant or exponential one was read
// and ignored without a word.
TEST(Profiles, ADistributionParameterTheDistributionDoesNotUseIsRefused) {
  struct Case {
    nlohmann::json read;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{{"dist", "constant"}, {"mean_ns", 1000}, {"sigma", 0.5}},
       "/drives/0/profile/read/sigma: dist \"constant\" does not use sigma (only lognormal takes it)"},
      {{{"dist", "exponential"}, {"mean_ns", 1000}, {"sigma", 0.1}},
       "/drives/0/profile/read/sigma: dist \"exponential\" does not use sigma (only lognormal takes it)"},
      {{{"dist", "empirical"}, {"cdf", {{1.0, 100}}}, {"mean_ns", 1000}},
       "/drives/0/profile/read/mean_ns: dist \"empirical\" does not use mean_ns (constant, exponential and lognormal take it)"},
      {{{"mean_ns", 1000}, {"cdf", {{1.0, 100}}}},  // dist defaults to lognormal
       "/drives/0/profile/read/cdf: dist \"lognormal\" does not use cdf (only empirical takes it)"},
      {{{"dist", "constant"}, {"mean_ns", 1000}, {"cdf_file", "x.csv"}},
       "/drives/0/profile/read/cdf_file: dist \"constant\" does not use cdf_file (only empirical takes it)"},
  };
  for (const Case& c : cases) {
    auto doc = testing::ideal_scenario();
    doc["drives"][0]["profile"]["read"] = c.read;
    auto r = load_scenario_json(doc, LoadOptions{});
    ASSERT_TRUE(std::holds_alternative<InputError>(r)) << c.read.dump();
    EXPECT_EQ(std::get<InputError>(r).str(), c.error);
  }
  // The resolved document gives sigma to the lognormal alone, so it loads again.
  auto doc = testing::ideal_scenario();
  doc["drives"][0]["profile"]["write"] = {{"dist", "exponential"}, {"mean_ns", 2000}};
  doc["drives"][0]["profile"]["read"] = {{"dist", "lognormal"}, {"mean_ns", 3000}};
  const LoadedScenario loaded = testing::load_or_fail(doc);
  const auto& profile = loaded.resolved["drives"][0]["profile"];
  EXPECT_FALSE(profile["write"].contains("sigma")) << profile["write"].dump();
  EXPECT_EQ(profile["read"]["sigma"], 0.3);
  testing::load_or_fail(loaded.resolved);
  // A resolved document written before 2026-12-05 gave every distribution a sigma, 0 where
  // it had none: no spread is what a constant or exponential has, so it still loads.
  auto old = testing::ideal_scenario();
  old["drives"][0]["profile"]["read"] = {{"dist", "constant"}, {"mean_ns", 1000}, {"sigma", 0}};
  old["drives"][0]["profile"]["write"] = {{"dist", "exponential"}, {"mean_ns", 2000}, {"sigma", 0.0}};
  testing::load_or_fail(old);
}

// A value outside its documented range is legal (sweeps explore there) and warned about,
// in the loaded scenario and in the run's results; inside (ends included) it is not.
TEST(Profiles, AValueOutsideItsRangeRunsAndWarns) {
  auto doc = testing::ideal_scenario();
  doc["duration_us"] = 1000;
  doc["warmup_us"] = 0;
  doc["host"]["ranges"] = {{"/irq_entry_ns", {0, 0}}, {"/libaio/syscall_ns", {0, 100}}};
  doc["drives"][0]["profile"]["ranges"] = {{"/read/mean_ns", {10000, 90000}}};
  EXPECT_TRUE(testing::load_or_fail(doc).warnings.empty());
  EXPECT_FALSE(testing::run(doc).contains("warnings"));

  const LoadedScenario out = testing::load_or_fail(doc, {"host.irq_entry_ns=250", "drives.0.profile.read.mean_ns=95000"});
  ASSERT_EQ(out.warnings.size(), 2u);
  EXPECT_EQ(out.warnings[0], "/host/irq_entry_ns = 250 is outside the physical range its profile documents, [0, 0]");
  EXPECT_EQ(out.warnings[1],
            "/drives/0/profile/read/mean_ns = 95000 is outside the physical range its profile documents, [10000, 90000]");
  const auto results = run_scenario(out);
  ASSERT_TRUE(results.contains("warnings"));
  EXPECT_EQ(results["warnings"][0], out.warnings[0]);
  EXPECT_EQ(results["warnings"][1], out.warnings[1]);
}

TEST(ServiceTime, LognormalHasTheConfiguredMean) {
  ServiceSpec s;
  s.dist.kind = DistSpec::Kind::lognormal;
  s.dist.mean = Duration::us(70);
  s.dist.sigma = 0.5;
  s.per_extra_4k = Duration::us(2);
  ServiceTime t(s);
  sim::Rng rng(1, 2);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) sum += static_cast<double>(t.draw(rng, 4096).count_ns());
  EXPECT_NEAR(sum / n, 70000.0, 700.0);
  // 16 KiB: three further 4 KiB blocks.
  EXPECT_EQ(ServiceTime(ServiceSpec{{DistSpec::Kind::constant, Duration::us(10), 0, {}}, Duration::us(2)})
                .draw(rng, 16384),
            Duration::us(16));
}

TEST(ServiceTime, EmpiricalInvertsTheCdf) {
  ServiceSpec s;
  s.dist.kind = DistSpec::Kind::empirical;
  s.dist.cdf = {{0.5, Duration::us(10)}, {1.0, Duration::us(30)}};
  ServiceTime t(s);
  sim::Rng rng(3, 4);
  int below10 = 0;
  const int n = 100000;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    Duration d = t.draw(rng, 4096);
    ASSERT_GE(d, Duration::zero());
    ASSERT_LE(d, Duration::us(30));
    if (d <= Duration::us(10)) ++below10;
    sum += static_cast<double>(d.count_ns());
  }
  EXPECT_NEAR(below10 / static_cast<double>(n), 0.5, 0.01);
  EXPECT_NEAR(sum / n, 0.5 * 5000 + 0.5 * 20000, 200);  // uniform on each piece
}

TEST(ServiceTime, EmpiricalCdfFileLoadsAndBadOnesAreRejectedWithTheirPath) {
  auto dir = fs::temp_directory_path();
  std::ofstream(dir / "nvmesim_cdf_ok.csv") << "# probability,ns\n0.9,50000\n1.0,200000\n";
  std::ofstream(dir / "nvmesim_cdf_bad.csv") << "0.9,50000\n0.8,60000\n";
  auto doc = testing::ideal_scenario();
  doc["drives"][0]["profile"]["read"] = {{"dist", "empirical"}, {"cdf_file", (dir / "nvmesim_cdf_ok.csv").string()}};
  LoadOptions o;
  auto r = load_scenario_json(doc, o);
  ASSERT_TRUE(std::holds_alternative<LoadedScenario>(r)) << std::get<InputError>(r).str();
  EXPECT_EQ(std::get<LoadedScenario>(r).scenario.drives[0].profile.read.dist.cdf.size(), 2u);
  doc["drives"][0]["profile"]["read"]["cdf_file"] = (dir / "nvmesim_cdf_bad.csv").string();
  r = load_scenario_json(doc, o);
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  // The file's line, not a pointer into a "cdf" the document does not hold.
  const std::string bad = (dir / "nvmesim_cdf_bad.csv").string();
  EXPECT_EQ(std::get<InputError>(r).str(),
            "/drives/0/profile/read/cdf_file: " + bad + ":2: probabilities must increase strictly within (0, 1]");
  doc["drives"][0]["profile"]["read"] = {{"dist", "empirical"}, {"cdf", {{0.5, 10}, {0.9, 20}}}};
  r = load_scenario_json(doc, o);
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_EQ(std::get<InputError>(r).str(), "/drives/0/profile/read/cdf: the last probability must be 1.0");
}

TEST(Schema, EveryKeyOfAResolvedScenarioIsInTheSchema) {
  const auto& schema = scenario_schema();
  auto resolved = testing::default_short()["scenario"];
  auto props = [](const nlohmann::json& s) -> const nlohmann::json& { return s["properties"]; };
  const auto& top = props(schema);
  for (const auto& [k, v] : resolved.items()) EXPECT_TRUE(top.contains(k)) << "/" << k;
  const auto& host = top["host"]["oneOf"][1]["properties"];
  for (const auto& [k, v] : resolved["host"].items()) EXPECT_TRUE(host.contains(k)) << "/host/" << k;
  const auto& dev = top["drives"]["items"]["properties"]["profile"]["oneOf"][1]["properties"];
  for (const auto& [k, v] : resolved["drives"][0]["profile"].items()) EXPECT_TRUE(dev.contains(k)) << k;
  const auto& job = top["jobs"]["items"]["properties"];
  for (const auto& [k, v] : resolved["jobs"][0].items()) EXPECT_TRUE(job.contains(k)) << "/jobs/0/" << k;
  std::vector<std::string> names;
  for (const auto& n : top["policy"]["properties"]["name"]["enum"]) names.push_back(n.get<std::string>());
  EXPECT_EQ(names.size(), policy::kPolicies.size());
}

}  // namespace
}  // namespace nvmesim
