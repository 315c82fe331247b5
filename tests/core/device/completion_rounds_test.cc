// How completions leave the controller (profile completion_round_ns, completion_round_max):
// CQEs posted together at round boundaries, at most so many per round.
#include <gtest/gtest.h>

#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

TEST(CompletionRounds, OffIsTheModelAsItWas) {
  auto doc = testing::ideal_scenario();
  auto plain = testing::run(doc);
  doc["drives"][0]["profile"]["completion_round_ns"] = 0;
  doc["drives"][0]["profile"]["completion_round_max"] = 0;
  EXPECT_EQ(testing::run(doc).dump(), plain.dump());
  EXPECT_EQ(plain["aggregate"]["latency_ns"]["mean"].get<double>(), 10000);
}

TEST(CompletionRounds, ACqeWaitsForTheNextRoundBoundary) {
  // QD1, 10 us of service on an ideal host: each command is submitted at a boundary (the
  // previous one's posting), done 10 us later and posted at the next multiple of 7 us.
  auto doc = testing::ideal_scenario();
  doc["drives"][0]["profile"]["completion_round_ns"] = 7000;
  auto r = testing::run(doc);
  EXPECT_EQ(r["aggregate"]["latency_ns"]["mean"].get<double>(), 14000);
  EXPECT_EQ(r["aggregate"]["latency_ns"]["max"].get<double>(), 14000);
}

TEST(CompletionRounds, ARoundPostsAtMostItsLimit) {
  // Eight in flight, 10 us each, rounds of 100 us: every round posts the eight together
  // (80K IOPS); with at most two per round, 20K.
  auto doc = testing::ideal_scenario();
  doc["drives"][0]["profile"]["units"] = 8;
  doc["jobs"][0]["iodepth"] = 8;
  doc["drives"][0]["profile"]["completion_round_ns"] = 100000;
  auto all = testing::run(doc);
  EXPECT_NEAR(all["aggregate"]["iops"].get<double>(), 80000, 800);
  EXPECT_EQ(all["aggregate"]["latency_ns"]["max"].get<double>(), 100000);  // submitted at a round, posted at the next
  doc["drives"][0]["profile"]["completion_round_max"] = 2;
  auto two = testing::run(doc);
  EXPECT_NEAR(two["aggregate"]["iops"].get<double>(), 20000, 200);
}

}  // namespace
}  // namespace nvmesim
