// Shipped profiles name the source of every number, and the distributions they may use
// draw what they claim.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "app/scenario_load.h"
#include "models/service_time.h"
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
      if (key == "name" || key == "comment" || key == "sources") continue;
      EXPECT_TRUE(doc["sources"].contains(key)) << e.path().filename() << ": no source for " << key;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
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
  EXPECT_EQ(std::get<InputError>(r).path, "/drives/0/profile/read/cdf/1");
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
