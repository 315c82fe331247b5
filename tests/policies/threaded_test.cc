#include "policies/threaded.h"

#include <gtest/gtest.h>

#include "tests/policies/fake_queue_env.h"

namespace nvmesim::policy {
namespace {

using testing::FakeQueueEnv;

TEST(ThreadedPolicy, HardIrqWithPendingCqeWakesThreadWithoutDraining) {
  ThreadedPolicy p;
  FakeQueueEnv q;
  q.pending = 4;
  q.inflight_ = 10;
  p.on_interrupt(q);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"wake"}));
  EXPECT_EQ(q.pending, 4u);
  EXPECT_EQ(q.counters().irq_useful, 1u);
  EXPECT_EQ(q.counters().irq_spurious, 0u);
  EXPECT_EQ(q.counters().thread_wakeups, 1u);
}

TEST(ThreadedPolicy, HardIrqOnEmptyCqIsSpuriousAndDoesNotWake) {
  ThreadedPolicy p;
  FakeQueueEnv q;
  p.on_interrupt(q);
  EXPECT_TRUE(q.ops.empty());
  EXPECT_EQ(q.counters().irq_spurious, 1u);
  EXPECT_EQ(q.counters().irq_useful, 0u);
  EXPECT_EQ(q.counters().thread_wakeups, 0u);
}

TEST(ThreadedPolicy, ThreadDrainsOnceAndParks) {
  ThreadedPolicy p;
  FakeQueueEnv q;
  q.pending = 4;
  q.inflight_ = 10;
  p.on_interrupt(q);
  q.clear_ops();
  const ThreadStep s = p.on_thread(q);
  EXPECT_EQ(s.kind, ThreadStep::Kind::park);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain:4"}));
  EXPECT_EQ(q.counters().completions, 4u);
  EXPECT_EQ(q.counters().mode_changes, 0u);
  EXPECT_FALSE(q.masked);
}

TEST(ThreadedPolicy, Shape) {
  EXPECT_EQ(ThreadedPolicy::kName, "threaded");
  EXPECT_TRUE(ThreadedPolicy::kUsesVector);
  EXPECT_FALSE(ThreadedPolicy::kAppPolls);
  EXPECT_EQ(ThreadedPolicy{}.mode(), "irq_thread");
  EXPECT_FALSE(ThreadedPolicy::check({}, 1024));
}

}  // namespace
}  // namespace nvmesim::policy
