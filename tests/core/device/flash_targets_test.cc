// A drive whose reads wait for their flash target (profile media_read_ns > 0), against
// queueing theory: random placement splits Poisson arrivals into one Poisson stream per
// target, so each target is an M/G/1 queue whose service is the time a read holds it.
#include <gtest/gtest.h>

#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

// An open loop of Poisson reads at `lambda` per second on the ideal host and drive.
nlohmann::json poisson_reads(double lambda) {
  auto doc = testing::ideal_scenario();
  doc["jobs"][0]["iodepth"] = 60000;  // open loop: never the limit
  doc["jobs"][0]["iodepth_batch_complete_max"] = 1;
  doc["jobs"][0]["rate_iops"] = lambda;
  doc["jobs"][0]["rate_process"] = "poisson";
  doc["duration_us"] = 4000000;
  doc["warmup_us"] = 20000;
  return doc;
}

TEST(FlashTargets, EachTargetIsAnMM1QueueWhenAReadHoldsItThroughout) {
  const int targets = 4;
  const double s = 10000, rho = 0.8, lambda = rho * targets / (s * 1e-9);
  auto doc = poisson_reads(lambda);
  doc["drives"][0]["profile"]["units"] = targets;
  doc["drives"][0]["profile"]["read"] = {{"dist", "exponential"}, {"mean_ns", s}};
  doc["drives"][0]["profile"]["media_read_ns"] = 1000000000;  // longer than any draw
  auto r = testing::run(doc);
  const double wq = rho / (1 - rho) * s;  // M/M/1 at rho
  EXPECT_NEAR(r["drives"][0]["device"]["mean_unit_wait_ns"].get<double>(), wq, 0.03 * wq);
  EXPECT_NEAR(r["aggregate"]["latency_ns"]["mean"].get<double>(), wq + s, 0.03 * (wq + s));
  EXPECT_NEAR(r["aggregate"]["iops"].get<double>(), lambda, 0.01 * lambda);
  EXPECT_NEAR(r["drives"][0]["device"]["unit_utilization"].get<double>(), rho, 0.01);

  // The same load on a pool of four waits far less (Erlang C: 0.596 / (4 mu - lambda) = 14.9 us).
  doc["drives"][0]["profile"].erase("media_read_ns");
  auto pool = testing::run(doc);
  EXPECT_LT(pool["drives"][0]["device"]["mean_unit_wait_ns"].get<double>(), 0.5 * wq);
}

TEST(FlashTargets, OnlyTheMediaTimeHoldsTheTarget) {
  // Reads of 10 us of which 5 us hold their target: two targets serve 0.32M/s (rho 0.8 on
  // the media), which a pool of two units holding each read for 10 us (0.2M/s) cannot.
  const int targets = 2;
  const double s = 10000, media = 5000, rho = 0.8, lambda = rho * targets / (media * 1e-9);
  auto doc = poisson_reads(lambda);
  doc["drives"][0]["profile"]["units"] = targets;
  doc["drives"][0]["profile"]["media_read_ns"] = media;
  auto r = testing::run(doc);
  const double wq = rho * media / (2 * (1 - rho));  // M/D/1 (Pollaczek-Khinchine)
  EXPECT_NEAR(r["drives"][0]["device"]["mean_unit_wait_ns"].get<double>(), wq, 0.03 * wq);
  EXPECT_NEAR(r["aggregate"]["latency_ns"]["mean"].get<double>(), wq + s, 0.03 * (wq + s));
  EXPECT_NEAR(r["aggregate"]["iops"].get<double>(), lambda, 0.01 * lambda);
  EXPECT_NEAR(r["drives"][0]["device"]["unit_utilization"].get<double>(), rho, 0.01);
}

TEST(FlashTargets, WritesHoldNoTarget) {
  // One target and 10 us writes at depth 8: acknowledged from the write buffer, they run
  // eight at a time (0.8M/s); on a pool of one unit they would run one at a time (0.1M/s).
  auto doc = testing::ideal_scenario();
  doc["drives"][0]["profile"]["units"] = 1;
  doc["drives"][0]["profile"]["media_read_ns"] = 10000;
  doc["jobs"][0]["rw"] = "randwrite";
  doc["jobs"][0]["iodepth"] = 8;
  auto r = testing::run(doc);
  EXPECT_NEAR(r["aggregate"]["iops"].get<double>(), 8 / 10e-6, 0.02 * 8 / 10e-6);
  EXPECT_EQ(r["drives"][0]["device"]["unit_utilization"].get<double>(), 0.0);
}

TEST(FlashTargets, ReadsOnTheirTargetsAreSlowerThanOnAPoolAtTheSameDepth) {
  // A closed loop with as many reads in flight as there are targets: a pool keeps every
  // unit busy; random placement leaves some targets idle while others queue.
  auto doc = testing::ideal_scenario();
  doc["drives"][0]["profile"]["units"] = 64;
  doc["drives"][0]["profile"]["read"] = {{"dist", "constant"}, {"mean_ns", 10000}};
  doc["jobs"][0]["iodepth"] = 64;
  doc["jobs"][0]["iodepth_batch_complete_max"] = 1;
  auto pool = testing::run(doc);
  doc["drives"][0]["profile"]["media_read_ns"] = 10000;
  auto targets = testing::run(doc);
  const double x_pool = pool["aggregate"]["iops"].get<double>();
  const double x_targets = targets["aggregate"]["iops"].get<double>();
  EXPECT_NEAR(x_pool, 64 / 10e-6, 0.02 * 64 / 10e-6);
  // With exponential service the closed network gives N / (N + U - 1) = 0.504 of the pool;
  // constant service waits less, but far from none.
  EXPECT_LT(x_targets, 0.8 * x_pool);
  EXPECT_GT(x_targets, 0.5 * x_pool);
  EXPECT_GT(targets["drives"][0]["device"]["mean_unit_wait_ns"].get<double>(), 1000);
}

}  // namespace
}  // namespace nvmesim
