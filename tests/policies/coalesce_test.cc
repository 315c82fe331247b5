#include "policies/coalesce.h"

#include <gtest/gtest.h>

#include "tests/policies/fake_queue_env.h"

namespace nvmesim::policy {
namespace {

using testing::FakeQueueEnv;

TEST(CoalescePolicy, ParamsAreDeclaredWithNvmeRanges) {
  ASSERT_EQ(kParamSpecs<CoalescePolicy::Params>.size(), 2u);
  EXPECT_EQ(kParamSpecs<CoalescePolicy::Params>[0].name, "thr");
  EXPECT_EQ(kParamSpecs<CoalescePolicy::Params>[0].default_value, 7);
  EXPECT_EQ(kParamSpecs<CoalescePolicy::Params>[0].min, 0);
  EXPECT_EQ(kParamSpecs<CoalescePolicy::Params>[0].max, 255);
  EXPECT_EQ(kParamSpecs<CoalescePolicy::Params>[1].name, "time_100us");
  EXPECT_EQ(kParamSpecs<CoalescePolicy::Params>[1].default_value, 1);
  EXPECT_EQ(kParamSpecs<CoalescePolicy::Params>[1].min, 0);
  EXPECT_EQ(kParamSpecs<CoalescePolicy::Params>[1].max, 255);
}

TEST(CoalescePolicy, ReportsRequestedThrAndTime) {
  EXPECT_EQ(CoalescePolicy::coalescing({}), (Coalescing{7, 1}));
  const CoalescePolicy::Params p{.thr = 31, .time_100us = 2};
  EXPECT_EQ(CoalescePolicy::coalescing(p), (Coalescing{31, 2}));
  CoalescePolicy pol{p};
  EXPECT_EQ(pol.coalescing(), (Coalescing{31, 2}));
  EXPECT_TRUE(pol.coalescing().enabled());
  EXPECT_EQ(pol.mode(), "coalesce_on");
}

TEST(CoalescePolicy, ThrZeroOrTimeZeroMeansOff) {
  EXPECT_FALSE((Coalescing{0, 1}).enabled());
  EXPECT_FALSE((Coalescing{7, 0}).enabled());
  EXPECT_TRUE((Coalescing{1, 1}).enabled());
  EXPECT_EQ(CoalescePolicy({.thr = 0}).mode(), "coalesce_off");
  EXPECT_EQ(CoalescePolicy({.time_100us = 0}).mode(), "coalesce_off");
}

TEST(CoalescePolicy, InterruptHandlingIsPlainIrq) {
  CoalescePolicy p;
  FakeQueueEnv q;
  q.pending = 8;
  q.inflight_ = 40;
  p.on_interrupt(q);
  p.on_interrupt(q);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain:8", "drain:0"}));
  EXPECT_EQ(q.counters().irq_useful, 1u);
  EXPECT_EQ(q.counters().irq_spurious, 1u);
  EXPECT_FALSE(q.masked);
}

}  // namespace
}  // namespace nvmesim::policy
