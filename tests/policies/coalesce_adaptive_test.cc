#include "policies/coalesce_adaptive.h"

#include <gtest/gtest.h>

#include "tests/policies/fake_queue_env.h"

namespace nvmesim::policy {
namespace {

using testing::FakeDriveEnv;
using testing::FakeQueueEnv;

constexpr Duration kCycle = Duration::ms(50);
constexpr double kCycleNs = 50e6;

class CoalesceAdaptiveTest : public ::testing::Test {
 protected:
  explicit CoalesceAdaptiveTest(CoalesceAdaptiveParams params = {}) : p(params) {
    EXPECT_EQ(p.on_monitor(d), kCycle);  // baseline
  }
  // One cycle with `io` completions, `qd_integral` I/O x ns of inflight over it and
  // `inflight` commands inflight at its end.
  Duration cycle_raw(uint64_t io, double qd_integral, uint64_t inflight) {
    d.run(kCycle, qd_integral, io);
    d.inflight = inflight;
    return p.on_monitor(d);
  }
  Duration cycle(uint64_t io, double avg_qd, uint64_t inflight) {
    return cycle_raw(io, avg_qd * kCycleNs, inflight);
  }
  void turn_on() {
    cycle(100000, 100, 1000);
    ASSERT_TRUE(p.coalescing_on());
    d.writes.clear();
  }

  CoalesceAdaptiveDrive p;
  FakeDriveEnv d;
};

TEST(CoalesceAdaptiveParams, MatchSpec) {
  const auto& k = kParamSpecs<CoalesceAdaptiveDrive::Params>;
  ASSERT_EQ(k.size(), 9u);
  const std::pair<std::string_view, int64_t> expected[] = {
      {"high_io_delta", 45000}, {"avg_qd_threshold", 32}, {"total_inflight_io_threshold", 256},
      {"cycle_us", 50000},      {"combine", 0},           {"avg_qd_scope", 0},
      {"hysteresis_pct", 10},   {"thr", 7},               {"time_100us", 1}};
  for (size_t i = 0; i < k.size(); ++i) {
    EXPECT_EQ(k[i].name, expected[i].first);
    EXPECT_EQ(k[i].default_value, expected[i].second) << k[i].name;
    EXPECT_LE(k[i].min, k[i].default_value);
    EXPECT_GE(k[i].max, k[i].default_value);
  }
  EXPECT_TRUE((std::is_same_v<CoalesceAdaptiveQueue::Params, CoalesceAdaptiveDrive::Params>));
  EXPECT_FALSE(CoalesceAdaptiveDrive::check({}, 1024));
}

TEST_F(CoalesceAdaptiveTest, StartsOffAndFirstCallOnlyTakesTheBaseline) {
  EXPECT_EQ(p.mode(), "coalesce_off");
  EXPECT_FALSE(p.coalescing_on());
  EXPECT_TRUE(d.writes.empty());
  EXPECT_TRUE(d.modes.empty());
  EXPECT_EQ(p.counters().cycles, 0u);
}

TEST_F(CoalesceAdaptiveTest, TurnsOnWhenAllThreeSignalsReachTheirThresholds) {
  d.completions = 1000000;  // history before the baseline does not count
  p.on_monitor(d);
  EXPECT_EQ(cycle(45000, 32, 256), kCycle);
  EXPECT_TRUE(p.coalescing_on());
  EXPECT_EQ(p.mode(), "coalesce_on");
  ASSERT_EQ(d.writes.size(), 1u);
  EXPECT_EQ(d.writes[0].thr, 7u);
  EXPECT_EQ(d.writes[0].time100us, 1u);
  EXPECT_EQ(d.writes[0].at, Time::zero() + kCycle);
  ASSERT_EQ(d.modes.size(), 1u);
  EXPECT_EQ(d.modes[0].from, "coalesce_off");
  EXPECT_EQ(d.modes[0].to, "coalesce_on");
  EXPECT_EQ(d.modes[0].reason,
            "coalesce_adaptive: heavy (io_delta 45000+, avg_qd 32.0+, inflight 256+), THR=7 "
            "TIME=1");
  EXPECT_EQ(p.counters().coalesce_on, 1u);
  EXPECT_EQ(p.counters().cycles, 2u);
}

TEST_F(CoalesceAdaptiveTest, IoDeltaOneBelowKeepsItOff) {
  cycle(44999, 32, 256);
  EXPECT_FALSE(p.coalescing_on());
  EXPECT_TRUE(d.writes.empty());
  EXPECT_TRUE(d.modes.empty());
  EXPECT_EQ(p.counters().cycles, 1u);
}

TEST_F(CoalesceAdaptiveTest, AverageQueueDepthJustBelowKeepsItOff) {
  cycle_raw(45000, 32 * kCycleNs - 1, 256);
  EXPECT_FALSE(p.coalescing_on());
  EXPECT_TRUE(d.writes.empty());
}

TEST_F(CoalesceAdaptiveTest, AverageQueueDepthIsATimeAverageOverTheCycle) {
  // 64 inflight for half the cycle, 0 for the other half: average 32.
  cycle_raw(45000, 64 * kCycleNs / 2, 256);
  EXPECT_TRUE(p.coalescing_on());
}

TEST_F(CoalesceAdaptiveTest, TotalInflightOneBelowKeepsItOff) {
  cycle(45000, 32, 255);
  EXPECT_FALSE(p.coalescing_on());
  EXPECT_TRUE(d.writes.empty());
}

TEST_F(CoalesceAdaptiveTest, StaysOnWithoutWritingAgain) {
  turn_on();
  cycle(45000, 32, 256);
  cycle(1000000, 500, 5000);
  EXPECT_TRUE(p.coalescing_on());
  EXPECT_TRUE(d.writes.empty());
  EXPECT_EQ(d.modes.size(), 1u);
}

TEST_F(CoalesceAdaptiveTest, TurnsOffWhenIoDeltaFallsBelowTheHysteresisThreshold) {
  turn_on();
  cycle(40500, 32, 256);  // 90% of 45000: still heavy while on
  EXPECT_TRUE(p.coalescing_on());
  EXPECT_TRUE(d.writes.empty());
  cycle(40499, 32, 256);
  EXPECT_FALSE(p.coalescing_on());
  EXPECT_EQ(p.mode(), "coalesce_off");
  ASSERT_EQ(d.writes.size(), 1u);
  EXPECT_EQ(d.writes[0].thr, 0u);
  EXPECT_EQ(d.writes[0].time100us, 0u);
  EXPECT_EQ(d.modes.back().from, "coalesce_on");
  EXPECT_EQ(d.modes.back().to, "coalesce_off");
  EXPECT_EQ(d.modes.back().reason,
            "coalesce_adaptive: not heavy (io_delta 40499-, avg_qd 32.0+, inflight 256+)");
  EXPECT_EQ(p.counters().coalesce_off, 1u);
}

TEST_F(CoalesceAdaptiveTest, TurnsOffWhenInflightFallsBelowTheHysteresisThreshold) {
  turn_on();
  cycle(45000, 32, 231);  // 231 >= 230.4
  EXPECT_TRUE(p.coalescing_on());
  cycle(45000, 32, 230);
  EXPECT_FALSE(p.coalescing_on());
}

TEST_F(CoalesceAdaptiveTest, TurnsOffWhenAverageQueueDepthFallsBelowTheHysteresisThreshold) {
  turn_on();
  cycle(45000, 29, 256);  // >= 28.8
  EXPECT_TRUE(p.coalescing_on());
  cycle(45000, 28.7, 256);
  EXPECT_FALSE(p.coalescing_on());
}

TEST_F(CoalesceAdaptiveTest, OffAgainNeedsTheFullThresholds) {
  turn_on();
  cycle(0, 0, 0);
  ASSERT_FALSE(p.coalescing_on());
  cycle(44000, 32, 256);  // would keep it on, does not turn it on
  EXPECT_FALSE(p.coalescing_on());
  cycle(45000, 32, 256);
  EXPECT_TRUE(p.coalescing_on());
  EXPECT_EQ(p.counters().coalesce_on, 2u);
  EXPECT_EQ(p.counters().coalesce_off, 1u);
}

class CoalesceAdaptiveNoHysteresisTest : public CoalesceAdaptiveTest {
 protected:
  CoalesceAdaptiveNoHysteresisTest() : CoalesceAdaptiveTest({.hysteresis_pct = 0}) {}
};

TEST_F(CoalesceAdaptiveNoHysteresisTest, TurnsOffOneBelowTheThreshold) {
  turn_on();
  cycle(45000, 32, 256);
  EXPECT_TRUE(p.coalescing_on());
  cycle(44999, 32, 256);
  EXPECT_FALSE(p.coalescing_on());
}

class CoalesceAdaptiveAnyTwoTest : public CoalesceAdaptiveTest {
 protected:
  CoalesceAdaptiveAnyTwoTest() : CoalesceAdaptiveTest({.combine = 1}) {}
};

TEST_F(CoalesceAdaptiveAnyTwoTest, TwoSignalsSuffice) {
  cycle(0, 32, 255);
  EXPECT_FALSE(p.coalescing_on());
  cycle(0, 32, 256);
  EXPECT_TRUE(p.coalescing_on());
}

class CoalesceAdaptiveAnyOneTest : public CoalesceAdaptiveTest {
 protected:
  CoalesceAdaptiveAnyOneTest() : CoalesceAdaptiveTest({.combine = 2}) {}
};

TEST_F(CoalesceAdaptiveAnyOneTest, OneSignalSuffices) {
  cycle(44999, 31, 255);
  EXPECT_FALSE(p.coalescing_on());
  cycle(0, 0, 256);
  EXPECT_TRUE(p.coalescing_on());
}

class CoalesceAdaptiveIoAndDepthTest : public CoalesceAdaptiveTest {
 protected:
  CoalesceAdaptiveIoAndDepthTest() : CoalesceAdaptiveTest({.combine = 3}) {}
};

TEST_F(CoalesceAdaptiveIoAndDepthTest, NeedsIoDeltaAndOneDepthSignal) {
  cycle(44999, 100, 1000);
  EXPECT_FALSE(p.coalescing_on());
  cycle(45000, 31, 255);
  EXPECT_FALSE(p.coalescing_on());
  cycle(45000, 31, 256);
  EXPECT_TRUE(p.coalescing_on());
}

TEST_F(CoalesceAdaptiveIoAndDepthTest, AverageDepthAloneWithIoDeltaSuffices) {
  cycle(45000, 32, 0);
  EXPECT_TRUE(p.coalescing_on());
}

class CoalesceAdaptivePerQueueTest : public CoalesceAdaptiveTest {
 protected:
  CoalesceAdaptivePerQueueTest() : CoalesceAdaptiveTest({.avg_qd_scope = 1}) {}
};

TEST_F(CoalesceAdaptivePerQueueTest, AverageIsDividedByTheIoQueueCount) {
  d.queues = 4;
  cycle_raw(45000, 128 * kCycleNs - 1, 256);
  EXPECT_FALSE(p.coalescing_on());
  cycle(45000, 128, 256);
  EXPECT_TRUE(p.coalescing_on());
}

class CoalesceAdaptiveCustomTest : public ::testing::Test {};

TEST_F(CoalesceAdaptiveCustomTest, CycleAndWrittenValuesAreParameters) {
  CoalesceAdaptiveDrive p{{.high_io_delta = 10,
                           .avg_qd_threshold = 2,
                           .total_inflight_io_threshold = 5,
                           .cycle_us = 2000,
                           .thr = 15,
                           .time_100us = 3}};
  FakeDriveEnv d;
  EXPECT_EQ(p.on_monitor(d), Duration::us(2000));
  d.run(Duration::us(2000), 2.0 * 2e6, 10);
  d.inflight = 5;
  EXPECT_EQ(p.on_monitor(d), Duration::us(2000));
  ASSERT_TRUE(p.coalescing_on());
  EXPECT_EQ(p.on_value(), (Coalescing{15, 3}));
  ASSERT_EQ(d.writes.size(), 1u);
  EXPECT_EQ(d.writes[0].thr, 15u);
  EXPECT_EQ(d.writes[0].time100us, 3u);
}

TEST_F(CoalesceAdaptiveCustomTest, FirstCallTakesTheBaselineOfALateStart) {
  CoalesceAdaptiveDrive p;
  FakeDriveEnv d;
  d.run(Duration::s(1), 1000 * 1e9, 10000000);  // before the monitor starts: ignored
  d.inflight = 1000;
  EXPECT_EQ(p.on_monitor(d), kCycle);
  EXPECT_FALSE(p.coalescing_on());
  d.run(kCycle, 32 * kCycleNs, 44999);
  EXPECT_EQ(p.on_monitor(d), kCycle);
  EXPECT_FALSE(p.coalescing_on());
  d.run(kCycle, 32 * kCycleNs - 1, 45000);
  p.on_monitor(d);
  EXPECT_FALSE(p.coalescing_on());
  d.run(kCycle, 32 * kCycleNs, 45000);
  p.on_monitor(d);
  EXPECT_TRUE(p.coalescing_on());
}

TEST(CoalesceAdaptiveQueue, InterruptHandlingIsPlainIrq) {
  CoalesceAdaptiveQueue p;
  FakeQueueEnv q;
  q.pending = 8;
  q.inflight_ = 40;
  p.on_interrupt(q);
  p.on_interrupt(q);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain:8", "drain:0"}));
  EXPECT_EQ(q.counters().irq_useful, 1u);
  EXPECT_EQ(q.counters().irq_spurious, 1u);
  EXPECT_EQ(p.mode(), "irq");
  EXPECT_EQ(CoalesceAdaptiveQueue::kName, "coalesce_adaptive");
}

}  // namespace
}  // namespace nvmesim::policy
