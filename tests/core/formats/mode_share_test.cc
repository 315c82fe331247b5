// Issue 10 item 10: a policy's share of the measured window per mode, from its timeline,
// and whether it acted inside the window at all.
#include "app/results/mode_share.h"

#include <gtest/gtest.h>

#include "tests/core/sim_helpers.h"

namespace nvmesim::results {
namespace {

TEST(ModeShare, TheWindowIsSplitAtEachChangeInsideIt) {
  std::vector<TimelineEntry> tl{{5, "irq", "poll", ""}, {40, "poll", "irq", ""}, {70, "irq", "poll", ""},
                                {200, "poll", "irq", ""}};
  auto s = mode_shares(tl, "irq", 10, 110);  // window [10, 110): poll 10-40, irq 40-70, poll 70-110
  EXPECT_EQ(s, (std::map<std::string, double>{{"irq", 0.3}, {"poll", 0.7}}));
  EXPECT_TRUE(changed_within(tl, 10, 110));
  EXPECT_FALSE(changed_within(tl, 80, 200));  // the change at 200 is the window's end: outside
}

TEST(ModeShare, NoChangeIsTheWholeWindowInTheOneMode) {
  EXPECT_EQ(mode_shares({}, "coalesce_off", 0, 50), (std::map<std::string, double>{{"coalesce_off", 1.0}}));
  std::vector<TimelineEntry> later{{90, "irq_measure", "poll_try", ""}};
  EXPECT_EQ(mode_shares(later, "poll_try", 0, 50), (std::map<std::string, double>{{"irq_measure", 1.0}}));
}

// The default scenario ends its measured window at 50 ms, exactly when policy C's first
// 50 ms cycle decides. With the warm-up kept as given, results say C never decided.
TEST(ModeShare, PolicyCOnTheDefaultScenarioWithItsWarmupAsGivenIsWarnedAbout) {
  auto r = testing::default_short(
      {"policy.name=coalesce_adaptive", "warmup_us=10000", "duration_us=40000", "warmup_covers_policy=false"});
  ASSERT_TRUE(r.contains("warnings"));
  EXPECT_NE(r["warnings"][0].get<std::string>().find("made no decision"), std::string::npos);
  EXPECT_EQ(r["scenario"]["warmup_us"], 10000);
  EXPECT_DOUBLE_EQ(r["drives"][0]["mode_share"].begin().value().get<double>(), 1.0);
  auto irq = testing::default_short({"policy.name=irq"});
  EXPECT_FALSE(irq.contains("warnings"));  // a baseline has one mode: nothing to warn about
}

// By default the loader lengthens a warm-up shorter than C's first cycle by that cycle,
// so C has decided before the window opens, and the results say the warm-up was changed.
TEST(ModeShare, TheWarmupIsLengthenedToCoverPolicyCsFirstDecision) {
  auto r = testing::default_short({"policy.name=coalesce_adaptive", "warmup_us=10000"});
  EXPECT_EQ(r["scenario"]["warmup_us"], 60000);
  ASSERT_TRUE(r.contains("warnings"));
  ASSERT_EQ(r["warnings"].size(), 1u);  // the lengthening; no drive left undecided
  EXPECT_NE(r["warnings"][0].get<std::string>().find("warmup_us lengthened from 10000 to 60000"), std::string::npos);
  // A warm-up that already covers the first cycle is kept, and so is a policy with no
  // first-cycle delay.
  EXPECT_EQ(testing::default_short({"policy.name=coalesce_adaptive", "policy.params.cycle_us=2000"})["scenario"]["warmup_us"], 3000);
  EXPECT_EQ(testing::default_short({"policy.name=watermark"})["scenario"]["warmup_us"], 3000);
}

}  // namespace
}  // namespace nvmesim::results
