// Every policy on the default four-drive testbed: it runs, its timeline shows the switches
// its mechanism makes, and the per-core accounting moves the way the mechanism says.
#include <gtest/gtest.h>

#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

using nlohmann::json;

double sum_cores(const json& r, const char* ctx) {
  double s = 0;
  for (const auto& c : r["cores"]) s += c["fractions"][ctx].get<double>();
  return s;
}

int64_t sum_counter(const json& r, const char* key) {
  int64_t s = 0;
  for (const auto& q : r["queues"]) s += q["counters"][key].get<int64_t>();
  return s;
}

// Hard-IRQ entries per I/O: every interrupt, useful or not, enters the handler.
double irqs_per_io(const json& r) { return r["aggregate"]["irqs_per_io"].get<double>(); }

class PolicyOnDefault : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { irq_ = new json(testing::default_short({"policy.name=irq"})); }
  static void TearDownTestSuite() { delete irq_; }
  static json* irq_;
};
json* PolicyOnDefault::irq_ = nullptr;

TEST_F(PolicyOnDefault, IrqBaselineHasNoModeChanges) {
  EXPECT_EQ(sum_counter(*irq_, "mode_changes"), 0);
  EXPECT_GT(sum_cores(*irq_, "hardirq"), 1.0);
  for (const auto& q : (*irq_)["queues"]) EXPECT_TRUE(q["mode_timeline"].empty());
}

TEST_F(PolicyOnDefault, WatermarkPollsInTheIrqThreadAndTakesFewerInterrupts) {
  auto r = testing::default_short({"policy.name=watermark"});
  bool entered = false;
  for (const auto& q : r["queues"])
    for (const auto& e : q["mode_timeline"])
      if (e["from"] == "irq" && e["to"] == "thread_poll" &&
          e["reason"].get<std::string>().find("inflight_high") != std::string::npos)
        entered = true;
  EXPECT_TRUE(entered);
  EXPECT_LT(irqs_per_io(r), 0.2 * irqs_per_io(*irq_));
  EXPECT_GT(sum_cores(r, "irq_thread"), 1.0);
  EXPECT_LT(sum_cores(r, "hardirq"), 0.1 * sum_cores(*irq_, "hardirq"));
  EXPECT_GT(sum_counter(r, "poll_useful"), 0);
  EXPECT_GT(sum_counter(r, "sleeps"), 0);
}

TEST_F(PolicyOnDefault, WatermarkLeavesPollingAtMaxLoops) {
  auto r = testing::default_short({"policy.name=watermark", "policy.params.max_loops=20"});
  int left = 0;
  for (const auto& q : r["queues"])
    for (const auto& e : q["mode_timeline"])
      if (e["from"] == "thread_poll" && e["to"] == "irq") ++left;
  EXPECT_GT(left, 0);
  EXPECT_GT(sum_counter(r, "unmasks"), 0);
}

TEST_F(PolicyOnDefault, RateTriesPollingFromSoftirqTimers) {
  // Windows of 1024 completions, so that a short run sees several decisions. Without the
  // shared MSI-X path: saturated by one message per CQE on this testbed, it lets the
  // short run's tries fail (docs/calibration.md), and this test is about B's mechanism.
  auto r = testing::default_short({"policy.name=rate", "policy.params.window=1024", "host.platform.interrupt_remapping=off"});
  bool tried = false;
  for (const auto& q : r["queues"])
    for (const auto& e : q["mode_timeline"])
      if (e["from"] == "irq_measure" && e["to"] == "poll_try") tried = true;
  EXPECT_TRUE(tried);
  EXPECT_GT(sum_counter(r, "timer_expiries"), 0);
  EXPECT_GT(sum_cores(r, "softirq"), 0.5);
  EXPECT_LT(irqs_per_io(r), irqs_per_io(*irq_));
}

TEST_F(PolicyOnDefault, RateBacksOffWhenPollingIsSlower) {
  // A poll period far longer than the pace: every try falls behind, three in a row back off.
  auto r = testing::default_short({"policy.name=rate", "policy.params.window=256",
                                   "policy.params.poll_period_ns=200000", "policy.params.budget=8",
                                   "policy.params.backoff_windows=2"});
  bool failed = false, backoff = false, measured_again = false;
  for (const auto& q : r["queues"])
    for (const auto& e : q["mode_timeline"]) {
      if (e["from"] == "poll_try" && e["to"] == "irq_measure") failed = true;
      if (e["to"] == "backoff") backoff = true;
      if (e["from"] == "backoff" && e["to"] == "irq_measure") measured_again = true;
    }
  EXPECT_TRUE(failed);
  EXPECT_TRUE(backoff);
  EXPECT_TRUE(measured_again);
}

TEST_F(PolicyOnDefault, ThreadedWakesIrqThreads) {
  auto r = testing::default_short({"policy.name=threaded"});
  EXPECT_GT(sum_cores(r, "irq_thread"), 0.5);
  EXPECT_GT(sum_counter(r, "thread_wakeups"), 0);
  EXPECT_GT(sum_cores(r, "hardirq"), 0.1);
}

TEST_F(PolicyOnDefault, StaticCoalescingHoldsPostingsBack) {
  auto r = testing::default_short({"policy.name=coalesce", "policy.params.thr=15", "policy.params.time_100us=1"});
  int64_t held = 0;
  for (const auto& d : r["drives"]) held += d["device"]["postings_coalesced"].get<int64_t>();
  EXPECT_GT(held, 0);
  EXPECT_LT(irqs_per_io(r), 0.5 * irqs_per_io(*irq_));
  EXPECT_LT(sum_cores(r, "hardirq"), sum_cores(*irq_, "hardirq"));
}

TEST_F(PolicyOnDefault, AdaptiveCoalescingTurnsOnUnderLoad) {
  // Cycles of 1 ms; 45 000 completions per 50 ms scale to 900 per 1 ms. The drives hold
  // ~300 commands (the rest wait in the starved applications), so the inflight threshold
  // is set clearly below that, away from the default 256 that this load straddles.
  auto r = testing::default_short({"policy.name=coalesce_adaptive", "policy.params.cycle_us=1000",
                                   "policy.params.high_io_delta=900", "policy.params.total_inflight_io_threshold=128"});
  for (const auto& d : r["drives"]) {
    ASSERT_FALSE(d["mode_timeline"].empty()) << d["name"];
    EXPECT_EQ(d["mode_timeline"][0]["from"], "coalesce_off");
    EXPECT_EQ(d["mode_timeline"][0]["to"], "coalesce_on");
    // Not necessarily on at the end: coalesced, a drive's messages no longer saturate its
    // root complex, its commands complete sooner, and fewer are in flight; the policy may
    // turn it off again.
    EXPECT_GT(d["device"]["admin_commands"].get<int64_t>() + 1, 0);
    EXPECT_GT(d["device"]["postings_coalesced"].get<int64_t>(), 0);
  }
}

TEST_F(PolicyOnDefault, AdaptiveCoalescingStaysOffAtLowDepth) {
  auto r = testing::default_short({"policy.name=coalesce_adaptive", "policy.params.cycle_us=1000",
                                   "policy.params.high_io_delta=900",
                                   "jobs=[{\"iodepth\":4,\"numjobs\":4,\"cpus_allowed\":\"0-3\"}]"});
  for (const auto& d : r["drives"]) {
    EXPECT_TRUE(d["mode_timeline"].empty()) << d["name"];
    EXPECT_EQ(d["device"]["postings_coalesced"].get<int64_t>(), 0);
  }
}

TEST(PolicyParams, EveryParameterIsReportedInTheResolvedScenario) {
  auto r = testing::default_short({"policy.name=rate"});
  const auto& p = r["scenario"]["policy"]["params"];
  for (const char* k : {"window", "enter_gap_ns", "behind_slack_ns", "max_failures", "backoff_windows",
                        "hold_windows", "poll_period_ns", "budget"})
    EXPECT_TRUE(p.contains(k)) << k;
  EXPECT_EQ(p["window"], 8192);
}

}  // namespace
}  // namespace nvmesim
