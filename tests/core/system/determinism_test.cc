#include <gtest/gtest.h>

#include <thread>

#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

TEST(Determinism, SameSeedGivesByteIdenticalResults) {
  std::string a = dump_results(testing::default_short());
  std::string b = dump_results(testing::default_short());
  ASSERT_GT(a.size(), 1000u);
  EXPECT_EQ(a, b);
}

TEST(Determinism, DifferentSeedGivesDifferentResults) {
  auto a = testing::default_short({"seed=1"});
  auto b = testing::default_short({"seed=2"});
  EXPECT_NE(a["aggregate"]["latency_ns"], b["aggregate"]["latency_ns"]);
  EXPECT_NE(dump_results(a), dump_results(b));
}

TEST(Determinism, SimulationsInParallelThreadsDoNotTouchEachOther) {
  auto serial1 = dump_results(testing::default_short({"seed=11"}));
  auto serial2 = dump_results(testing::default_short({"seed=12", "policy.name=poll"}));
  std::string par1, par2;
  std::thread t1([&] { par1 = dump_results(testing::default_short({"seed=11"})); });
  std::thread t2([&] { par2 = dump_results(testing::default_short({"seed=12", "policy.name=poll"})); });
  t1.join();
  t2.join();
  EXPECT_EQ(par1, serial1);
  EXPECT_EQ(par2, serial2);
}

TEST(Determinism, AddingADriveLeavesTheOtherDrivesStreamsAlone) {
  // Drive 0 alone, and drive 0 next to an independent drive 1 with its own job on its own
  // core: drive 0's service-time stream is keyed by drive, so its job sees the same
  // latencies either way.
  auto doc = testing::ideal_scenario();
  doc["drives"][0]["profile"]["read"] = {{"dist", "exponential"}, {"mean_ns", 10000}};
  doc["jobs"][0]["drives"] = {0};
  doc["jobs"][0]["iodepth"] = 4;
  auto one = testing::run(doc);
  doc["drives"].push_back({{"name", "d1"}, {"profile", doc["drives"][0]["profile"]}});
  doc["jobs"].push_back({{"name", "k"}, {"iodepth", 4}, {"cpus_allowed", "1"}, {"drives", {1}}});
  auto two = testing::run(doc);
  EXPECT_EQ(one["jobs"][0]["latency_ns"], two["jobs"][0]["latency_ns"]);
  EXPECT_EQ(one["jobs"][0]["ios"], two["jobs"][0]["ios"]);
}

TEST(Determinism, ResolvedScenarioReloadsToTheSameRun) {
  auto a = testing::default_short();
  auto b = testing::run(a["scenario"]);
  EXPECT_EQ(dump_results(a), dump_results(b));
}

}  // namespace
}  // namespace nvmesim
