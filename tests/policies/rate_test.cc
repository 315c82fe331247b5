#include "policies/rate.h"

#include <gtest/gtest.h>

#include "tests/policies/fake_queue_env.h"

namespace nvmesim::policy {
namespace {

using testing::FakeQueueEnv;
using State = RatePolicy::State;

constexpr uint32_t kWindow = 8192;
constexpr Duration kFastWindow = Duration::ns(int64_t{kWindow} * 5000);  // P = 5 us

class RateTest : public ::testing::Test {
 protected:
  explicit RateTest(RatePolicy::Params params = {}) : p(params) {}

  // The very first interrupt: starts the first IRQ window; its CQEs are not counted.
  void start() {
    q.pending = 1;
    q.inflight_ = 100;
    p.on_interrupt(q);
  }
  // An interrupt `d` after the previous event that drains `n` CQEs.
  void irq(Duration d, uint32_t n) {
    q.advance(d);
    q.pending = n;
    q.inflight_ = 100 + n;
    p.on_interrupt(q);
  }
  // A whole IRQ-mode window of `d` (IRQ-measure or Backoff).
  void irq_window(Duration d) { irq(d, kWindow); }
  // From the start, IRQ-measure -> Poll-try with D_irq = d.
  void enter_try(Duration d = kFastWindow) {
    start();
    irq_window(d);
    ASSERT_EQ(p.state(), State::poll_try);
  }
  // One softirq run `d` after the previous event, with `n` CQEs visible.
  TimerStep timer(Duration d, uint32_t n) {
    q.advance(d);
    q.pending = n;
    q.inflight_ = 100 + n;
    return p.on_timer(q);
  }
  // A whole polled window at exactly the IRQ pace, its last run `total` after its start:
  // 32 runs of 256 CQEs. Returns the last run's step.
  TimerStep poll_window(Duration total) {
    const Time t0 = q.now();
    const Duration step = total / 32;
    for (int k = 1; k < 32; ++k) {
      const TimerStep s = timer(step, 256);
      EXPECT_TRUE(s.rearm) << "run " << k;
    }
    q.set_now(t0 + total);
    q.pending = 256;
    return p.on_timer(q);
  }
  // A try that fails early: nothing for just over behind_slack_ns.
  void fail_try() {
    const TimerStep s = timer(Duration::ns(20001), 0);
    EXPECT_FALSE(s.rearm);
  }
  void succeed_try() {
    const TimerStep s = poll_window(kFastWindow - Duration::ns(1));
    EXPECT_TRUE(s.rearm);
    ASSERT_EQ(p.state(), State::poll_hold);
  }

  RatePolicy p;
  FakeQueueEnv q;
};

TEST(RatePolicyParams, MatchSpec) {
  const auto& k = kParamSpecs<RatePolicy::Params>;
  ASSERT_EQ(k.size(), 8u);
  const std::pair<std::string_view, int64_t> expected[] = {
      {"window", 8192},         {"enter_gap_ns", 10000},  {"behind_slack_ns", 20000},
      {"max_failures", 3},      {"backoff_windows", 64},  {"hold_windows", 64},
      {"poll_period_ns", 5000}, {"budget", 256}};
  for (size_t i = 0; i < k.size(); ++i) {
    EXPECT_EQ(k[i].name, expected[i].first);
    EXPECT_EQ(k[i].default_value, expected[i].second) << k[i].name;
    EXPECT_LE(k[i].min, k[i].default_value);
    EXPECT_GE(k[i].max, k[i].default_value);
  }
  EXPECT_FALSE(RatePolicy::check({}, 1024));
}

TEST_F(RateTest, StartsInIrqMeasure) {
  EXPECT_EQ(p.mode(), "irq_measure");
  start();
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain:1"}));
  EXPECT_EQ(q.counters().irq_useful, 1u);
  irq(Duration::us(1), 0);
  EXPECT_EQ(q.counters().irq_spurious, 1u);
}

TEST_F(RateTest, WindowClosesAtExactlyWindowCompletions) {
  start();
  irq(Duration::us(100), kWindow - 1);  // the first interrupt's CQE does not count
  EXPECT_EQ(p.state(), State::irq_measure);
  EXPECT_FALSE(q.masked);
  irq(Duration::us(1), 1);
  EXPECT_EQ(p.state(), State::poll_try);
}

TEST_F(RateTest, EntersPollTryWhenAverageGapEqualsEnterGap) {
  start();
  q.clear_ops();
  irq_window(Duration::ns(int64_t{kWindow} * 10000));
  EXPECT_EQ(p.state(), State::poll_try);
  EXPECT_EQ(p.mode(), "poll_try");
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain:8192", "mode:irq_measure->poll_try", "mask",
                                             "arm:5000"}));
  EXPECT_TRUE(q.masked);
  EXPECT_EQ(p.irq_window(), Duration::ns(int64_t{kWindow} * 10000));
  ASSERT_EQ(q.modes.size(), 1u);
  EXPECT_EQ(q.modes[0].reason, "rate: irq pace 10.0 µs <= enter_gap 10.0 µs, trying poll");
  EXPECT_EQ(q.counters().masks, 1u);
  EXPECT_EQ(q.counters().mode_changes, 1u);
}

TEST_F(RateTest, OneNanosecondSlowerWindowKeepsMeasuring) {
  start();
  irq_window(Duration::ns(int64_t{kWindow} * 10000 + 1));
  EXPECT_EQ(p.state(), State::irq_measure);
  EXPECT_FALSE(q.masked);
  EXPECT_TRUE(q.modes.empty());
  // A new window started at that interrupt.
  irq_window(Duration::ns(int64_t{kWindow} * 10000));
  EXPECT_EQ(p.state(), State::poll_try);
}

TEST_F(RateTest, InterruptsWhilePollingAreOnlyCounted) {
  enter_try();
  q.clear_ops();
  q.pending = 9;
  p.on_interrupt(q);
  EXPECT_TRUE(q.ops.empty());
  EXPECT_EQ(q.pending, 9u);
  EXPECT_EQ(q.counters().irq_while_polling, 1u);
}

TEST_F(RateTest, TimerDrainsUpToBudgetAndReArms) {
  enter_try();
  q.clear_ops();
  TimerStep s = timer(Duration::us(5), 10);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain_budget:256:10"}));
  EXPECT_TRUE(s.rearm);
  EXPECT_EQ(s.period, Duration::ns(5000));
  EXPECT_EQ(q.counters().poll_useful, 1u);
  // A full budget: irq_poll runs again at once.
  s = timer(Duration::us(5), 300);
  EXPECT_EQ(q.pending, 44u);
  EXPECT_TRUE(s.rearm);
  EXPECT_EQ(s.period, Duration::zero());
  s = timer(Duration::zero(), 44);
  EXPECT_EQ(s.period, Duration::ns(5000));
  s = timer(Duration::us(5), 0);
  EXPECT_EQ(q.counters().poll_useful, 3u);
  EXPECT_EQ(q.counters().poll_empty, 1u);
  EXPECT_EQ(p.state(), State::poll_try);
}

TEST_F(RateTest, NotBehindAtExactlySlack) {
  enter_try();
  const TimerStep s = timer(Duration::ns(20000), 0);
  EXPECT_TRUE(s.rearm);
  EXPECT_EQ(p.state(), State::poll_try);
}

TEST_F(RateTest, FailsEarlyWhenMoreThanSlackBehind) {
  enter_try();
  q.clear_ops();
  const TimerStep s = timer(Duration::ns(20001), 0);
  EXPECT_FALSE(s.rearm);
  EXPECT_EQ(p.state(), State::irq_measure);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain_budget:256:0", "mode:poll_try->irq_measure",
                                             "unmask"}));
  EXPECT_FALSE(q.masked);
  EXPECT_EQ(q.modes.back().reason, "rate: poll try failed: 20.0 µs behind irq pace");
  EXPECT_EQ(p.consecutive_failures(), 1u);
  EXPECT_EQ(q.counters().backoffs, 0u);
  EXPECT_EQ(q.counters().unmasks, 1u);
}

// P = D_irq / window is not rounded: with D_irq = window * 5000.5 ns, 10 completions
// are worth 50005 ns of IRQ pace, so the limit is 70005 ns.
TEST_F(RateTest, EarlyFailureUsesTheExactIrqPace) {
  enter_try(Duration::ns(int64_t{kWindow} * 5000 + kWindow / 2));
  EXPECT_TRUE(timer(Duration::ns(70005), 10).rearm);
  EXPECT_EQ(p.state(), State::poll_try);
}

TEST_F(RateTest, EarlyFailureOneNanosecondPastTheExactPace) {
  enter_try(Duration::ns(int64_t{kWindow} * 5000 + kWindow / 2));
  EXPECT_FALSE(timer(Duration::ns(70006), 10).rearm);
  EXPECT_EQ(p.state(), State::irq_measure);
  EXPECT_EQ(q.modes.back().reason, "rate: poll try failed: 20.0 µs behind irq pace");
}

TEST_F(RateTest, EarlyFailureIsCheckedAtEveryRunBeforeTheWindowIsFull) {
  enter_try();
  // Keep pace for a while (256 CQEs per 1.28 ms at P = 5 us), then stall.
  for (int k = 0; k < 20; ++k) ASSERT_TRUE(timer(Duration::us(1280), 256).rearm);
  EXPECT_TRUE(timer(Duration::ns(20000), 0).rearm);
  EXPECT_FALSE(timer(Duration::ns(1), 0).rearm);
  EXPECT_EQ(p.state(), State::irq_measure);
}

TEST_F(RateTest, SucceedsWhenStrictlyFasterThanIrqWindow) {
  enter_try();
  q.clear_ops();
  const TimerStep s = poll_window(kFastWindow - Duration::ns(1));
  EXPECT_TRUE(s.rearm);
  EXPECT_EQ(p.state(), State::poll_hold);
  EXPECT_EQ(p.mode(), "poll_hold");
  EXPECT_TRUE(q.masked);
  EXPECT_FALSE(q.did("unmask"));
  EXPECT_EQ(q.modes.back().from, "poll_try");
  EXPECT_EQ(q.modes.back().to, "poll_hold");
  EXPECT_EQ(q.modes.back().reason,
            "rate: poll try succeeded: window 40960.0 µs < irq window 40960.0 µs");
}

TEST_F(RateTest, EqualToIrqWindowFails) {
  enter_try();
  const TimerStep s = poll_window(kFastWindow);
  EXPECT_FALSE(s.rearm);
  EXPECT_EQ(p.state(), State::irq_measure);
  EXPECT_FALSE(q.masked);
  EXPECT_EQ(q.modes.back().reason,
            "rate: poll try failed: window 40960.0 µs not faster than irq window 40960.0 µs");
  EXPECT_EQ(p.consecutive_failures(), 1u);
}

TEST_F(RateTest, TryDecidesAtExactlyWindowCompletions) {
  enter_try();
  const Time t0 = q.now();
  for (int k = 0; k < 31; ++k) ASSERT_TRUE(timer(Duration::us(1280), 256).rearm);
  q.set_now(t0 + kFastWindow - Duration::ns(1));
  q.pending = 255;  // 8191
  EXPECT_TRUE(p.on_timer(q).rearm);
  EXPECT_EQ(p.state(), State::poll_try);
  q.pending = 1;  // 8192
  EXPECT_TRUE(p.on_timer(q).rearm);
  EXPECT_EQ(p.state(), State::poll_hold);
}

TEST_F(RateTest, BacksOffAfterThreeFailuresInARow) {
  enter_try();
  fail_try();
  EXPECT_EQ(p.state(), State::irq_measure);
  irq_window(kFastWindow);
  fail_try();
  EXPECT_EQ(p.state(), State::irq_measure);
  EXPECT_EQ(p.consecutive_failures(), 2u);
  EXPECT_EQ(q.counters().backoffs, 0u);
  irq_window(kFastWindow);
  q.clear_ops();
  fail_try();
  EXPECT_EQ(p.state(), State::backoff);
  EXPECT_EQ(p.mode(), "backoff");
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain_budget:256:0", "mode:poll_try->backoff",
                                             "unmask"}));
  EXPECT_EQ(q.modes.back().reason,
            "rate: poll try failed: 20.0 µs behind irq pace; 3 failures in a row, backing off "
            "64 windows");
  EXPECT_EQ(q.counters().backoffs, 1u);
  EXPECT_EQ(p.consecutive_failures(), 0u);
}

TEST_F(RateTest, SuccessResetsTheFailureCount) {
  enter_try();
  fail_try();
  irq_window(kFastWindow);
  fail_try();
  irq_window(kFastWindow);
  succeed_try();
  EXPECT_EQ(p.consecutive_failures(), 0u);
  for (int w = 0; w < 64; ++w) poll_window(kFastWindow);  // hold, then release
  ASSERT_EQ(p.state(), State::irq_measure);
  irq_window(kFastWindow);
  fail_try();
  irq_window(kFastWindow);
  fail_try();
  EXPECT_EQ(p.state(), State::irq_measure);
  EXPECT_EQ(q.counters().backoffs, 0u);
}

TEST_F(RateTest, BackoffLastsExactly64WindowsWithoutMeasuring) {
  enter_try();
  for (int i = 0; i < 3; ++i) {
    if (i > 0) irq_window(kFastWindow);
    fail_try();
  }
  ASSERT_EQ(p.state(), State::backoff);
  q.clear_ops();
  // Very fast windows: IRQ-measure would try polling at once; Backoff does not measure.
  for (int w = 0; w < 63; ++w) irq_window(Duration::us(1));
  irq(Duration::us(1), kWindow - 1);  // 64th window one completion short
  EXPECT_EQ(p.state(), State::backoff);
  EXPECT_FALSE(q.did("mask"));
  irq(Duration::us(1), 1);
  EXPECT_EQ(p.state(), State::irq_measure);
  EXPECT_FALSE(q.did("mask"));
  EXPECT_EQ(q.modes.back().from, "backoff");
  EXPECT_EQ(q.modes.back().to, "irq_measure");
  EXPECT_EQ(q.modes.back().reason, "rate: back-off over after 64 windows");
  // Measuring again.
  irq_window(kFastWindow);
  EXPECT_EQ(p.state(), State::poll_try);
}

TEST_F(RateTest, AfterBackoffThreeMoreFailuresAreNeeded) {
  enter_try();
  for (int i = 0; i < 3; ++i) {
    if (i > 0) irq_window(kFastWindow);
    fail_try();
  }
  for (int w = 0; w < 64; ++w) irq_window(Duration::us(1));
  ASSERT_EQ(p.state(), State::irq_measure);
  irq_window(kFastWindow);
  fail_try();
  EXPECT_EQ(p.state(), State::irq_measure);
  irq_window(kFastWindow);
  fail_try();
  EXPECT_EQ(p.state(), State::irq_measure);
  irq_window(kFastWindow);
  fail_try();
  EXPECT_EQ(p.state(), State::backoff);
  EXPECT_EQ(q.counters().backoffs, 2u);
}

TEST_F(RateTest, HoldReleasesAfterExactly64Windows) {
  enter_try();
  succeed_try();
  for (int w = 0; w < 63; ++w) EXPECT_TRUE(poll_window(Duration::ms(100)).rearm) << w;
  EXPECT_EQ(p.state(), State::poll_hold);  // holding does not compare with D_irq
  EXPECT_TRUE(q.masked);
  const Time t0 = q.now();
  for (int k = 0; k < 31; ++k) timer(Duration::us(10), 256);
  EXPECT_TRUE(timer(Duration::us(10), 255).rearm);  // one short of the 64th window
  EXPECT_EQ(p.state(), State::poll_hold);
  q.clear_ops();
  const TimerStep s = timer(Duration::us(10), 1);
  EXPECT_FALSE(s.rearm);
  EXPECT_EQ(p.state(), State::irq_measure);
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain_budget:256:1", "mode:poll_hold->irq_measure",
                                             "unmask"}));
  EXPECT_FALSE(q.masked);
  EXPECT_EQ(q.modes.back().reason, "rate: held 64 windows, back to irq");
  EXPECT_GT(q.now(), t0);
  // The next IRQ window measures from the release.
  irq_window(kFastWindow);
  EXPECT_EQ(p.state(), State::poll_try);
}

TEST_F(RateTest, TimelineOfAFullCycle) {
  enter_try();
  succeed_try();
  for (int w = 0; w < 64; ++w) poll_window(kFastWindow);
  std::vector<std::string> seen;
  for (const auto& m : q.modes) seen.push_back(m.from + "->" + m.to);
  EXPECT_EQ(seen, (std::vector<std::string>{"irq_measure->poll_try", "poll_try->poll_hold",
                                            "poll_hold->irq_measure"}));
  EXPECT_EQ(q.counters().mode_changes, 3u);
  EXPECT_EQ(q.counters().masks, 1u);
  EXPECT_EQ(q.counters().unmasks, 1u);
  EXPECT_EQ(q.counters().completions, 1u + kWindow + 65u * kWindow);
}

// Every parameter reaches the state machine.
class RateSmallTest : public RateTest {
 protected:
  RateSmallTest()
      : RateTest({.window = 4,
                  .enter_gap_ns = 100,
                  .behind_slack_ns = 50,
                  .max_failures = 2,
                  .backoff_windows = 3,
                  .hold_windows = 2,
                  .poll_period_ns = 700,
                  .budget = 2}) {}
};

TEST_F(RateSmallTest, ParametersDriveEveryTransition) {
  start();
  irq(Duration::ns(401), 4);  // gap 100.25 ns > 100
  EXPECT_EQ(p.state(), State::irq_measure);
  irq(Duration::ns(400), 4);
  ASSERT_EQ(p.state(), State::poll_try);
  EXPECT_EQ(q.timer_arms.back(), Duration::ns(700));
  EXPECT_TRUE(timer(Duration::ns(50), 0).rearm);    // 50 behind: not more than slack
  EXPECT_FALSE(timer(Duration::ns(1), 0).rearm);    // 51 behind: fail 1
  EXPECT_EQ(p.state(), State::irq_measure);
  irq(Duration::ns(400), 4);
  ASSERT_EQ(p.state(), State::poll_try);
  EXPECT_FALSE(timer(Duration::ns(51), 0).rearm);   // fail 2 = max_failures
  EXPECT_EQ(p.state(), State::backoff);
  irq(Duration::ns(1), 4);
  irq(Duration::ns(1), 4);
  EXPECT_EQ(p.state(), State::backoff);
  irq(Duration::ns(1), 4);
  EXPECT_EQ(p.state(), State::irq_measure);
  irq(Duration::ns(400), 4);
  ASSERT_EQ(p.state(), State::poll_try);
  q.clear_ops();
  TimerStep s = timer(Duration::ns(100), 3);  // budget 2: drains 2, runs again at once
  EXPECT_EQ(q.ops, (std::vector<std::string>{"drain_budget:2:2"}));
  EXPECT_EQ(s.period, Duration::zero());
  s = timer(Duration::ns(99), 2);  // 4 in 199 ns < 400: success
  EXPECT_EQ(p.state(), State::poll_hold);
  EXPECT_EQ(s.period, Duration::zero());
  timer(Duration::ns(10), 2);
  s = timer(Duration::ns(10), 2);  // hold window 1
  EXPECT_EQ(p.state(), State::poll_hold);
  timer(Duration::ns(10), 2);
  s = timer(Duration::ns(10), 2);  // hold window 2: release
  EXPECT_FALSE(s.rearm);
  EXPECT_EQ(p.state(), State::irq_measure);
  EXPECT_EQ(q.modes.back().reason, "rate: held 2 windows, back to irq");
}

// Issue 10 item 10: "at most hold_windows windows" on a queue that goes idle. The windows
// are windows of completions (policies.md counts them, not time), so the patch as
// specified never ends a hold whose queue stops completing: its hrtimer keeps polling an
// empty CQ every period, with the vector masked. The model does exactly that; a bound in
// time would be a change of the policy, not of its runner.
TEST_F(RateTest, AHoldOnAQueueThatGoesIdleKeepsPollingAnEmptyCq) {
  enter_try();
  succeed_try();
  const uint64_t empty_before = q.counters().poll_empty;
  for (int i = 0; i < 10000; ++i) {  // 50 ms of empty polls at the 5 us period
    const TimerStep s = timer(Duration::us(5), 0);
    ASSERT_TRUE(s.rearm);
    ASSERT_EQ(s.period, Duration::us(5));
  }
  EXPECT_EQ(p.state(), State::poll_hold);
  EXPECT_TRUE(q.masked);
  EXPECT_EQ(q.counters().poll_empty - empty_before, 10000u);
}

}  // namespace
}  // namespace nvmesim::policy

