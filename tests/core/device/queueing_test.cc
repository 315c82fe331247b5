// The device and the closed loop against queueing theory.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

// Erlang C: probability that an arrival waits in an M/M/c queue with offered load a = lambda/mu.
double erlang_c(int c, double a) {
  double term = 1, sum = 1;  // k = 0
  for (int k = 1; k < c; ++k) {
    term *= a / k;
    sum += term;
  }
  double top = term * a / c / (1 - a / c);  // a^c / c! * c / (c - a)
  return top / (sum + top);
}

TEST(Queueing, MMcDeviceMatchesErlangCMeanWait) {
  const int c = 4;
  const double service_ns = 10000, lambda = 0.8 * c / (service_ns * 1e-9);  // rho = 0.8
  auto doc = testing::ideal_scenario();
  doc["drives"][0]["profile"]["units"] = c;
  doc["drives"][0]["profile"]["read"] = {{"dist", "exponential"}, {"mean_ns", service_ns}};
  doc["jobs"][0]["iodepth"] = 60000;  // open loop: never the limit
  doc["jobs"][0]["iodepth_batch_complete_max"] = 1;
  doc["jobs"][0]["rate_iops"] = lambda;
  doc["jobs"][0]["rate_process"] = "poisson";
  doc["duration_us"] = 4000000;  // about 1.3M arrivals
  doc["warmup_us"] = 20000;
  auto r = testing::run(doc);
  double mu = 1e9 / service_ns;
  double wq = erlang_c(c, lambda / mu) / (c * mu - lambda) * 1e9;  // ns
  double got = r["drives"][0]["device"]["mean_unit_wait_ns"].get<double>();
  EXPECT_NEAR(got, wq, 0.02 * wq) << "Erlang C mean wait " << wq << " ns";
  // With a free host the application sees wait + service.
  double lat = r["aggregate"]["latency_ns"]["mean"].get<double>();
  EXPECT_NEAR(lat, wq + service_ns, 0.02 * (wq + service_ns));
  EXPECT_NEAR(r["aggregate"]["iops"].get<double>(), lambda, 0.01 * lambda);
}

TEST(Queueing, ClosedLoopObeysLittlesLaw) {
  auto doc = testing::ideal_scenario();
  doc["drives"][0]["profile"]["read"] = {{"dist", "lognormal"}, {"mean_ns", 20000}, {"sigma", 0.8}};
  doc["drives"][0]["profile"]["units"] = 8;
  doc["jobs"][0]["iodepth"] = 16;
  auto r = testing::run(doc);
  double x = r["aggregate"]["iops"].get<double>();
  double w = r["aggregate"]["latency_ns"]["mean"].get<double>() * 1e-9;
  EXPECT_NEAR(x * w, 16.0, 0.16);
}

// A job deeper than its queue: nvme-pci gives a queue of depth D D - 1 blk-mq tags, so at
// most D - 1 commands are in flight (and the CQ, D - 1 entries between head doorbells,
// cannot overflow), however many the job asks for and however fast the drive fetches.
// (The SQ's free slots are no such bound: a CQE's SQ head frees the slots of commands
// fetched after it, still in flight when their service times vary. Before the tags, this
// job ran 32 in flight.)
TEST(Queueing, AJobDeeperThanItsQueueWaitsForTags) {
  auto doc = testing::ideal_scenario();
  doc["queue_depth"] = 16;
  doc["drives"][0]["profile"]["units"] = 64;  // never the limit
  doc["drives"][0]["profile"]["read"] = {{"dist", "lognormal"}, {"mean_ns", 10000}, {"sigma", 0.8}};
  doc["jobs"][0]["iodepth"] = 32;
  auto r = testing::run(doc);
  const double x = r["aggregate"]["iops"].get<double>();
  const double w = r["aggregate"]["latency_ns"]["mean"].get<double>() * 1e-9;
  EXPECT_NEAR(x * w, 15.0, 0.15);  // Little's law: 15 tags busy all the time
}

TEST(Queueing, ClosedLoopWithHostCostsKeepsLittlesLawForTheTimeInSystem) {
  // With real host costs each request spends part of its cycle outside the system (between
  // reap and resubmit), so X * W falls below the depth, but never above it.
  auto r = testing::default_short({"jobs=[{\"iodepth\":32,\"cpus_allowed\":\"0\",\"drives\":[0]}]"});
  double x = r["aggregate"]["iops"].get<double>();
  double w = r["aggregate"]["latency_ns"]["mean"].get<double>() * 1e-9;
  EXPECT_LE(x * w, 32.0 * 1.01);
  EXPECT_GE(x * w, 32.0 * 0.8);
}

}  // namespace
}  // namespace nvmesim
