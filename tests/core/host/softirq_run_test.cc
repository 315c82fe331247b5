// Issue 10 items 8 and 10: a run of __do_softirq on its own (restart and time limits,
// then ksoftirqd), and in runs: ksoftirqd's time is softirq time, and irq_poll's re-poll
// of a queue that used its whole weight is no timer expiry when irq_poll runs as
// lib/irq_poll.c does.
#include "models/host/softirq_run.h"

#include <gtest/gtest.h>

#include "models/system/system.h"
#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

using Next = SoftirqRun::Next;
Time at_us(int64_t us) { return Time::zero() + Duration::us(us); }

TEST(SoftirqRun, APassTakesTheItemsPendingAtItsStartThenRestarts) {
  SoftirqRun run(SoftirqLimits{10, Duration::ms(2)});
  run.begin(at_us(0), 2);
  run.took_item();
  EXPECT_EQ(run.after_item(at_us(1), 3), Next::item);  // one more in this pass
  run.took_item();
  EXPECT_EQ(run.after_item(at_us(2), 2), Next::item);  // a restart: pass 2
  EXPECT_EQ(run.passes(), 2u);
  run.took_item();
  run.took_item();
  EXPECT_EQ(run.after_item(at_us(3), 0), Next::done);
  EXPECT_FALSE(run.running());
}

TEST(SoftirqRun, TheTenthPassWithWorkLeftWakesKsoftirqd) {
  SoftirqRun run(SoftirqLimits{10, Duration::ms(2)});
  run.begin(at_us(0), 1);
  for (int pass = 1; pass < 10; ++pass) {
    run.took_item();
    ASSERT_EQ(run.after_item(at_us(pass), 1), Next::item) << pass;  // re-raised each time
  }
  EXPECT_EQ(run.passes(), 10u);
  run.took_item();
  EXPECT_EQ(run.after_item(at_us(10), 1), Next::to_ksoftirqd);
  EXPECT_FALSE(run.running());
}

TEST(SoftirqRun, TwoMillisecondsWithWorkLeftWakesKsoftirqdAtThePassEnd) {
  SoftirqRun run(SoftirqLimits{10, Duration::ms(2)});
  run.begin(at_us(0), 2);
  run.took_item();
  EXPECT_EQ(run.after_item(at_us(2500), 5), Next::item);  // the pass is not over yet
  run.took_item();
  EXPECT_EQ(run.after_item(at_us(2600), 5), Next::to_ksoftirqd);
}

TEST(SoftirqRun, WithoutLimitsARunNeverHandsOver) {
  SoftirqRun run;  // off
  run.begin(at_us(0), 1);
  for (int pass = 1; pass < 100; ++pass) {
    run.took_item();
    ASSERT_EQ(run.after_item(at_us(pass * 100), 1), Next::item);
  }
}

TEST(SoftirqRun, AnExhaustedPollBudgetEndsThePassEarly) {
  SoftirqRun run(SoftirqLimits{2, Duration::ms(2)});
  run.begin(at_us(0), 3);
  run.took_item();
  run.end_pass();
  EXPECT_EQ(run.after_item(at_us(1), 2), Next::item);  // pass 2 of 2
  run.took_item();
  run.end_pass();
  EXPECT_EQ(run.after_item(at_us(2), 1), Next::to_ksoftirqd);
}

using nlohmann::json;

// The shipped host profile turns every delivery mechanism on; these tests switch off all
// but the one they isolate.
const std::vector<std::string> kDeliveryOff = {
    "host.platform.interrupt_remapping=off", "host.softirq_limits.max_restart=0", "host.irq_poll.budget_per_cpu=0",
    "host.irq_poll.rearm_from_poll_end=false", "host.completion_ipi.cores_per_llc=0"};

std::vector<std::string> with(std::vector<std::string> set) {
  std::vector<std::string> out = kDeliveryOff;
  out.insert(out.end(), set.begin(), set.end());
  return out;
}

int64_t sum_counter(const json& r, const char* key) {
  int64_t s = 0;
  for (const auto& q : r["queues"]) s += q["counters"][key].get<int64_t>();
  return s;
}

// Policy B with a weight of 4 CQEs per poll, so that most polls use their whole weight
// and irq_poll polls again. Off: each re-poll is a fresh timer expiry. Linux's way:
// the re-poll stays in the softirq run and is no expiry.
TEST(IrqPoll, ARePollInTheSameSoftirqRunIsNoTimerExpiry) {
  const json off = testing::default_short(with({"policy.name=rate", "policy.params.budget=4", "policy.params.window=256"}));
  const int64_t polls_off = sum_counter(off, "poll_useful") + sum_counter(off, "poll_empty");
  ASSERT_GT(polls_off, 0);
  EXPECT_EQ(sum_counter(off, "timer_expiries"), polls_off);
  json on = testing::default_short(with({"policy.name=rate", "policy.params.budget=4", "policy.params.window=256",
                                         "host.irq_poll.budget_per_cpu=256"}));
  const int64_t polls_on = sum_counter(on, "poll_useful") + sum_counter(on, "poll_empty");
  ASSERT_GT(polls_on, 0);
  EXPECT_LT(sum_counter(on, "timer_expiries"), polls_on);
}

// With the limits on, a core whose softirq work never lets up (a poll weight of one CQE
// pass shared by polls of 4 CQEs at QD1024, the default's jobs in fio's loop: the case was
// built with it, before t/io_uring's loop became the default's) hands it to ksoftirqd;
// off, it never does. ksoftirqd's time is
// softirq time either way.
TEST(Ksoftirqd, TheLimitsHandWorkToKsoftirqdOnlyWhenOn) {
  auto handed = [](const std::vector<std::string>& set) {
    // Later overrides win: the others off, irq_poll's per-CPU budget at 1, then `set`.
    std::vector<std::string> all = {"duration_us=4000", "warmup_us=3000", "policy.name=rate",
                                    "policy.params.budget=4", "policy.params.window=256"};
    all.insert(all.end(), kDeliveryOff.begin(), kDeliveryOff.end());
    all.push_back("host.irq_poll.budget_per_cpu=1");
    for (const char* j : {"0", "1", "2", "3"}) all.push_back(std::string("jobs.") + j + ".submit_and_wait=false");
    all.insert(all.end(), set.begin(), set.end());
    LoadOptions o;
    o.overrides = std::move(all);
    auto loaded = std::get<LoadedScenario>(load_scenario_file(default_scenarios_dir() + "/default.json", o));
    System sys(loaded.scenario);
    sys.run();
    uint64_t n = 0;
    double softirq_ns = 0;
    for (uint32_t c = 0; c < sys.core_count(); ++c) {
      n += sys.softirq(c).handed_to_ksoftirqd;
      softirq_ns += static_cast<double>(sys.core_times(c).busy[index(Context::softirq)].count_ns());
    }
    EXPECT_GT(softirq_ns, 0.0);
    return n;
  };
  EXPECT_EQ(handed({}), 0u);
  EXPECT_GT(handed({"host.softirq_limits.max_restart=10"}), 0u);
}

}  // namespace
}  // namespace nvmesim
