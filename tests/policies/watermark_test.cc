#include "policies/watermark.h"

#include <gtest/gtest.h>

#include "tests/policies/fake_queue_env.h"

namespace nvmesim::policy {
namespace {

using testing::FakeQueueEnv;
using Kind = ThreadStep::Kind;

// A hard IRQ that finds `found` CQEs and leaves `inflight_after` commands inflight.
void irq(WatermarkPolicy& p, FakeQueueEnv& q, uint32_t found, uint32_t inflight_after) {
  q.pending = found;
  q.inflight_ = inflight_after + found;
  p.on_interrupt(q);
}

// Puts the policy into thread polling with the default inflight_high.
void enter(WatermarkPolicy& p, FakeQueueEnv& q) {
  irq(p, q, 4, 40);
  ASSERT_TRUE(p.polling());
  q.clear_ops();
}

// One empty thread iteration with `inflight` commands inflight.
ThreadStep empty_check(WatermarkPolicy& p, FakeQueueEnv& q, uint32_t inflight) {
  q.pending = 0;
  q.inflight_ = inflight;
  return p.on_thread(q);
}

TEST(WatermarkPolicy, ParamsMatchSpec) {
  const auto& k = kParamSpecs<WatermarkPolicy::Params>;
  ASSERT_EQ(k.size(), 4u);
  EXPECT_EQ(k[0].name, "inflight_high");
  EXPECT_EQ(k[0].default_value, 32);
  EXPECT_EQ(k[1].name, "inflight_low");
  EXPECT_EQ(k[1].default_value, 3);
  EXPECT_EQ(k[2].name, "interval_us");
  EXPECT_EQ(k[2].default_value, 30);
  EXPECT_EQ(k[3].name, "max_loops");
  EXPECT_EQ(k[3].default_value, 1000);
  for (const auto& s : k) EXPECT_EQ(s.min, 1) << s.name << " must be nonzero";
  EXPECT_EQ(WatermarkPolicy::kLowInflightChecks, 3u);
}

TEST(WatermarkPolicy, CheckHighAboveLowAndBelowDepth) {
  EXPECT_FALSE(WatermarkPolicy::check({}, 1024));
  EXPECT_FALSE(WatermarkPolicy::check({.inflight_high = 4, .inflight_low = 3}, 1024));
  const auto eq = WatermarkPolicy::check({.inflight_high = 3, .inflight_low = 3}, 1024);
  ASSERT_TRUE(eq);
  EXPECT_EQ(eq->param, "inflight_high");  // the loader's JSON path names it
  EXPECT_NE(eq->message.find("inflight_low"), std::string::npos) << eq->message;
  EXPECT_TRUE(WatermarkPolicy::check({.inflight_high = 2}, 1024));
  EXPECT_FALSE(WatermarkPolicy::check({.inflight_high = 1023}, 1024));
  const auto deep = WatermarkPolicy::check({.inflight_high = 1024}, 1024);
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->param, "inflight_high");
  EXPECT_NE(deep->message.find("queue depth"), std::string::npos) << deep->message;
  EXPECT_FALSE(WatermarkPolicy::check({}, 33));
  EXPECT_TRUE(WatermarkPolicy::check({}, 32));
}

TEST(WatermarkPolicy, UsefulIrqBelowHighStaysInIrqMode) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  irq(p, q, 5, 31);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain:5"}));
  EXPECT_FALSE(p.polling());
  EXPECT_EQ(p.mode(), "irq");
  EXPECT_EQ(q.counters().irq_useful, 1u);
  EXPECT_EQ(q.counters().masks, 0u);
}

TEST(WatermarkPolicy, EntersPollingWhenInflightReachesHighAfterDrain) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  q.set_now(Time::from_ns(1234));
  irq(p, q, 5, 32);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain:5", "mask", "wake", "mode:irq->thread_poll"}));
  EXPECT_TRUE(p.polling());
  EXPECT_EQ(p.mode(), "thread_poll");
  ASSERT_EQ(q.modes.size(), 1u);
  EXPECT_EQ(q.modes[0].at, Time::from_ns(1234));
  EXPECT_EQ(q.modes[0].reason, "watermark: inflight 32 >= inflight_high 32 after drain");
  EXPECT_EQ(q.counters().irq_useful, 1u);
  EXPECT_EQ(q.counters().masks, 1u);
  EXPECT_EQ(q.counters().thread_wakeups, 1u);
  EXPECT_EQ(q.counters().mode_changes, 1u);
}

TEST(WatermarkPolicy, InflightIsTakenAfterTheDrain) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  q.pending = 10;
  q.inflight_ = 40;  // 30 after draining 10: below 32
  p.on_interrupt(q);
  EXPECT_FALSE(p.polling());
}

TEST(WatermarkPolicy, HighIsAParameter) {
  WatermarkPolicy p{{.inflight_high = 100}};
  FakeQueueEnv q;
  irq(p, q, 1, 99);
  EXPECT_FALSE(p.polling());
  irq(p, q, 1, 100);
  EXPECT_TRUE(p.polling());
}

TEST(WatermarkPolicy, SpuriousIrqNeverEntersPolling) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  irq(p, q, 0, 500);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain:0"}));
  EXPECT_FALSE(p.polling());
  EXPECT_EQ(q.counters().irq_spurious, 1u);
  EXPECT_EQ(q.counters().irq_useful, 0u);
}

TEST(WatermarkPolicy, IrqWhilePollingReturnsAtOnce) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  enter(p, q);
  q.pending = 7;
  p.on_interrupt(q);
  EXPECT_TRUE(q.ops.empty());
  EXPECT_EQ(q.pending, 7u);
  EXPECT_EQ(q.counters().irq_while_polling, 1u);
  EXPECT_EQ(q.counters().irq_useful, 1u);  // only the one that entered polling
  EXPECT_EQ(q.counters().irq_spurious, 0u);
  EXPECT_TRUE(p.polling());
}

TEST(WatermarkPolicy, ThreadDrainsAndReschedsWhenCqePending) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  enter(p, q);
  q.pending = 6;
  q.inflight_ = 50;
  const ThreadStep s = p.on_thread(q);
  EXPECT_EQ(s.kind, Kind::resched);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"poll_check", "drain:6"}));
  EXPECT_EQ(q.counters().poll_useful, 1u);
}

TEST(WatermarkPolicy, EmptyCheckSleepsIntervalUs) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  enter(p, q);
  const ThreadStep s = empty_check(p, q, 10);
  EXPECT_EQ(s.kind, Kind::sleep);
  EXPECT_EQ(s.duration, Duration::us(30));
  EXPECT_EQ(q.ops, (std::vector<std::string>{"poll_check"}));
  EXPECT_EQ(q.counters().poll_empty, 1u);

  WatermarkPolicy p2{{.interval_us = 7}};
  FakeQueueEnv q2;
  enter(p2, q2);
  EXPECT_EQ(empty_check(p2, q2, 10).duration, Duration::us(7));
}

TEST(WatermarkPolicy, LeavesAfterExactlyThreeLowInflightChecks) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  enter(p, q);
  q.set_now(Time::from_ns(5000));
  EXPECT_EQ(empty_check(p, q, 2).kind, Kind::sleep);
  EXPECT_EQ(p.low_checks(), 1u);
  EXPECT_EQ(empty_check(p, q, 2).kind, Kind::sleep);
  EXPECT_EQ(p.low_checks(), 2u);
  EXPECT_TRUE(p.polling());
  EXPECT_FALSE(q.did("unmask"));
  q.clear_ops();
  const ThreadStep s = empty_check(p, q, 2);
  EXPECT_EQ(s.kind, Kind::park);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"poll_check", "mode:thread_poll->irq", "unmask"}));
  EXPECT_FALSE(p.polling());
  EXPECT_FALSE(q.masked);
  EXPECT_EQ(p.mode(), "irq");
  EXPECT_EQ(q.counters().unmasks, 1u);
  EXPECT_EQ(q.counters().mode_changes, 2u);
  ASSERT_EQ(q.modes.size(), 2u);
  EXPECT_EQ(q.modes[1].reason, "watermark: 3 low-inflight checks (inflight 2 < inflight_low 3)");
}

TEST(WatermarkPolicy, InflightEqualToLowIsNotLow) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  enter(p, q);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(empty_check(p, q, 3).kind, Kind::sleep);
  EXPECT_EQ(p.low_checks(), 0u);
  EXPECT_TRUE(p.polling());
}

TEST(WatermarkPolicy, LowIsAParameter) {
  WatermarkPolicy p{{.inflight_low = 5}};
  FakeQueueEnv q;
  enter(p, q);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(empty_check(p, q, 5).kind, Kind::sleep);
  EXPECT_EQ(empty_check(p, q, 4).kind, Kind::sleep);
  EXPECT_EQ(empty_check(p, q, 4).kind, Kind::sleep);
  EXPECT_EQ(empty_check(p, q, 4).kind, Kind::park);
}

TEST(WatermarkPolicy, NotLowCheckResetsLowChecks) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  enter(p, q);
  EXPECT_EQ(empty_check(p, q, 0).kind, Kind::sleep);
  EXPECT_EQ(empty_check(p, q, 1).kind, Kind::sleep);
  EXPECT_EQ(empty_check(p, q, 3).kind, Kind::sleep);  // not low: reset
  EXPECT_EQ(p.low_checks(), 0u);
  EXPECT_EQ(empty_check(p, q, 0).kind, Kind::sleep);
  EXPECT_EQ(empty_check(p, q, 0).kind, Kind::sleep);
  EXPECT_TRUE(p.polling());
  EXPECT_EQ(empty_check(p, q, 0).kind, Kind::park);
  EXPECT_FALSE(p.polling());
}

TEST(WatermarkPolicy, WorkResetsLowChecks) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  enter(p, q);
  EXPECT_EQ(empty_check(p, q, 1).kind, Kind::sleep);
  EXPECT_EQ(empty_check(p, q, 1).kind, Kind::sleep);
  q.pending = 1;
  q.inflight_ = 2;
  EXPECT_EQ(p.on_thread(q).kind, Kind::resched);
  EXPECT_EQ(p.low_checks(), 0u);
  EXPECT_EQ(empty_check(p, q, 1).kind, Kind::sleep);
  EXPECT_EQ(empty_check(p, q, 1).kind, Kind::sleep);
  EXPECT_TRUE(p.polling());
  EXPECT_EQ(empty_check(p, q, 1).kind, Kind::park);
}

TEST(WatermarkPolicy, StopsAfterDefaultMaxLoopsIterations) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  enter(p, q);
  for (int i = 0; i < 1000; ++i) {
    const ThreadStep s = empty_check(p, q, 10);
    ASSERT_EQ(s.kind, Kind::sleep) << "iteration " << i;
  }
  EXPECT_TRUE(p.polling());
  EXPECT_FALSE(q.did("unmask"));
  q.clear_ops();
  const ThreadStep s = empty_check(p, q, 10);
  EXPECT_EQ(s.kind, Kind::park);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"mode:thread_poll->irq", "unmask"}));
  EXPECT_FALSE(p.polling());
  EXPECT_EQ(q.modes.back().reason, "watermark: max_loops 1000 used up");
}

TEST(WatermarkPolicy, EveryIterationCountsAgainstMaxLoops) {
  WatermarkPolicy p{{.max_loops = 4}};
  FakeQueueEnv q;
  enter(p, q);
  q.pending = 3;
  q.inflight_ = 50;
  EXPECT_EQ(p.on_thread(q).kind, Kind::resched);  // 1: work
  EXPECT_EQ(empty_check(p, q, 50).kind, Kind::sleep);  // 2: no work
  q.pending = 3;
  EXPECT_EQ(p.on_thread(q).kind, Kind::resched);  // 3: work
  EXPECT_EQ(empty_check(p, q, 50).kind, Kind::sleep);  // 4: no work
  q.pending = 3;  // work waiting, but the loop is used up
  q.clear_ops();
  EXPECT_EQ(p.on_thread(q).kind, Kind::park);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"mode:thread_poll->irq", "unmask"}));
  EXPECT_EQ(q.pending, 3u);
}

TEST(WatermarkPolicy, MaxLoopsIsSampledAtEachThreadStart) {
  WatermarkPolicy p{{.max_loops = 2}};
  FakeQueueEnv q;
  enter(p, q);
  EXPECT_EQ(empty_check(p, q, 10).kind, Kind::sleep);
  EXPECT_EQ(empty_check(p, q, 10).kind, Kind::sleep);
  EXPECT_EQ(empty_check(p, q, 10).kind, Kind::park);
  // Back in IRQ mode: the next useful IRQ at high inflight polls again, with a full loop.
  irq(p, q, 1, 32);
  ASSERT_TRUE(p.polling());
  EXPECT_EQ(empty_check(p, q, 2).kind, Kind::sleep);  // low_checks restarted too
  EXPECT_EQ(empty_check(p, q, 2).kind, Kind::sleep);
  EXPECT_EQ(empty_check(p, q, 2).kind, Kind::park);
  EXPECT_EQ(q.modes.back().reason, "watermark: max_loops 2 used up");
}

TEST(WatermarkPolicy, AfterStopIrqsAreHandledAgain) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  enter(p, q);
  empty_check(p, q, 0);
  empty_check(p, q, 0);
  ASSERT_EQ(empty_check(p, q, 0).kind, Kind::park);
  q.clear_ops();
  irq(p, q, 2, 5);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain:2"}));
  EXPECT_EQ(q.counters().irq_while_polling, 0u);
}

TEST(WatermarkPolicy, ThreadWokenWithoutPollingParks) {
  WatermarkPolicy p;
  FakeQueueEnv q;
  q.pending = 5;
  EXPECT_EQ(p.on_thread(q).kind, Kind::park);
  EXPECT_TRUE(q.ops.empty());
}

}  // namespace
}  // namespace nvmesim::policy
