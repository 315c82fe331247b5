// The costs a real host pays for interrupts (issue 10, items 2-5), each switched on alone
// on the ideal host (every other cost zero), so that the CPU time it adds is exactly
// what the mechanism says. Items 1 and 6 (pollution, switch-out and idle) are tested on
// the core alone in cpu_core_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/host/timer_slack.h"
#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

using testing::ideal_scenario;
using testing::run;

// CPU time in `ctx` over all cores, in the measured window.
int64_t busy_ns(const nlohmann::json& r, const std::string& ctx) {
  int64_t t = 0;
  for (const auto& c : r["cores"]) t += c["time_ns"][ctx].get<int64_t>();
  return t;
}
int64_t total(const nlohmann::json& r, const std::string& counter) {
  int64_t n = 0;
  for (const auto& q : r["queues"]) n += q["counters"][counter].get<int64_t>();
  return n;
}

// ---- item 2: timer interrupts are interrupts ---------------------------------------------

TEST(TimerInterrupts, AnIrqThreadsTimedSleepEndsInAnInterruptThatPaysEntryAndExit) {
  auto doc = ideal_scenario();
  doc["host"]["irq_entry_ns"] = 500;
  doc["host"]["irq_exit_ns"] = 500;
  doc["jobs"][0]["iodepth"] = 64;
  doc["policy"] = {{"name", "watermark"}, {"params", {{"inflight_high", 8}, {"inflight_low", 4}, {"interval_us", 20}}}};
  auto folded = run(doc);
  doc["host"]["timer_expiry"] = "interrupt";
  auto irq = run(doc);
  // Folded: hard-IRQ time is the MSI-X interrupts' alone.
  EXPECT_EQ(busy_ns(folded, "hardirq"), folded["aggregate"]["interrupts"]["total"].get<int64_t>() * 1000);
  // As interrupts: each timer interrupt adds entry + exit; at most one per sleep (expiries
  // that meet share one).
  const int64_t timer_irq_ns = busy_ns(irq, "hardirq") - irq["aggregate"]["interrupts"]["total"].get<int64_t>() * 1000;
  EXPECT_GT(timer_irq_ns, 0);
  EXPECT_EQ(timer_irq_ns % 1000, 0);
  EXPECT_LE(timer_irq_ns / 1000, total(irq, "sleeps"));
  EXPECT_GT(timer_irq_ns / 1000, total(irq, "sleeps") / 2);
}

TEST(TimerInterrupts, APolicyTimersExpiryMovesFromTheSoftirqToAHardIrq) {
  auto doc = ideal_scenario();
  doc["host"]["hrtimer_expiry_ns"] = 300;
  doc["jobs"][0]["iodepth"] = 64;
  doc["policy"] = {{"name", "rate"}, {"params", {{"enter_gap_ns", 1000000}}}};
  auto folded = run(doc);
  doc["host"]["timer_expiry"] = "interrupt";
  auto irq = run(doc);
  // 300 ns per expiry: in the softirq when folded, in the timer interrupt otherwise.
  const int64_t folded_expiries = total(folded, "timer_expiries");
  ASSERT_GT(folded_expiries, 10);
  // (Within one expiry: the window's edge may cut one.)
  EXPECT_NEAR(busy_ns(folded, "softirq"), folded_expiries * 300, 300);
  EXPECT_EQ(busy_ns(folded, "hardirq"), 0);
  EXPECT_EQ(busy_ns(irq, "softirq"), 0);
  EXPECT_NEAR(busy_ns(irq, "hardirq"), total(irq, "timer_expiries") * 300, 300);
}

TEST(TimerInterrupts, TheirIndirectCostIsOwedByTheTaskThatRunsNext) {
  auto doc = ideal_scenario();
  doc["jobs"][0]["iodepth"] = 64;
  doc["policy"] = {{"name", "watermark"}, {"params", {{"inflight_high", 8}, {"inflight_low", 4}, {"interval_us", 20}}}};
  doc["host"]["irq_indirect_ns"] = 700;
  auto folded = run(doc);
  doc["host"]["timer_expiry"] = "interrupt";
  auto irq = run(doc);
  // The app and the IRQ thread cost nothing else here but the IRQ thread's looks at the CQ
  // (1 ns each, the least; one per poll, useful or empty): the rest of their time is the
  // pollution owed, 700 ns at a time. Folded, an expiry is no interrupt and leaves nothing owed: only the MSI-X
  // interrupts do. As interrupts, the timer interrupts leave debts too.
  auto owed = [](const nlohmann::json& r) {
    return busy_ns(r, "app") + busy_ns(r, "irq_thread") - total(r, "poll_empty") - total(r, "poll_useful");
  };
  auto msix = [](const nlohmann::json& r) { return r["aggregate"]["interrupts"]["total"].get<int64_t>(); };
  EXPECT_EQ(owed(folded) % 700, 0);
  EXPECT_LE(owed(folded), 700 * msix(folded));
  EXPECT_EQ(owed(irq) % 700, 0);
  EXPECT_GT(owed(irq), 700 * msix(irq));
  EXPECT_LE(owed(irq), 700 * (msix(irq) + total(irq, "sleeps")));
}

// ---- item 3: where a range sleep ends ------------------------------------------------------

TEST(TimerSlack, RtTasksIgnoreSlackOthersFireAtTheHardExpiryOrUniformlyInTheRange) {
  sim::Rng rng(1, 2);
  const Duration d = Duration::us(40);
  EXPECT_EQ(range_sleep_slack(TimerSlack::rt_ignores_slack, d, 25, true, rng), Duration::zero());
  EXPECT_EQ(range_sleep_slack(TimerSlack::rt_ignores_slack, d, 25, false, rng), Duration::us(10));
  EXPECT_EQ(range_sleep_slack(TimerSlack::hard_expiry, d, 25, true, rng), Duration::us(10));
  int64_t sum = 0, lo = INT64_MAX, hi = 0;
  for (int i = 0; i < 10000; ++i) {
    int64_t s = range_sleep_slack(TimerSlack::uniform_in_range, d, 25, true, rng).count_ns();
    sum += s;
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  EXPECT_GE(lo, 0);
  EXPECT_LE(hi, 10000);
  EXPECT_NEAR(static_cast<double>(sum) / 10000, 5000, 150);
}

TEST(TimerSlack, TheIrqThreadSleepsLongerWithSlackThanWithout) {
  auto doc = ideal_scenario();
  doc["jobs"][0]["iodepth"] = 64;
  doc["host"]["fsleep_slack_pct"] = 100;
  doc["policy"] = {{"name", "watermark"}, {"params", {{"inflight_high", 8}, {"inflight_low", 4}, {"interval_us", 20}}}};
  doc["host"]["timer_slack"] = "rt_ignores_slack";
  auto rt = run(doc);
  doc["host"]["timer_slack"] = "hard_expiry";
  auto hard = run(doc);
  // Sleeping 20 us instead of 40 us, the thread sleeps more often in the same window.
  EXPECT_GT(total(rt, "sleeps"), total(hard, "sleeps") * 3 / 2);
}

// ---- item 4: per-CQE completion work is the same code everywhere -------------------------

TEST(CqeCost, ByContextAThreadPaysThePolledCostSameCodeItPaysTheOneCost) {
  auto doc = ideal_scenario();
  doc["host"]["irq_per_cqe_ns"] = 600;
  doc["host"]["poll_per_cqe_ns"] = 100;
  doc["jobs"][0]["iodepth"] = 16;
  doc["policy"] = {{"name", "threaded"}};
  auto by_context = run(doc);
  const int64_t n = total(by_context, "completions");
  ASSERT_GT(n, 1000);
  EXPECT_NEAR(busy_ns(by_context, "irq_thread"), 100 * n, 700);  // a drain may straddle the window edge
  doc["host"]["cqe_cost"] = "same_code";
  doc["host"]["cqe_work_ns"] = 600;
  auto same = run(doc);
  EXPECT_NEAR(busy_ns(same, "irq_thread"), 600 * total(same, "completions"), 700 * 16);
}

TEST(CqeCost, ADrainAfterAnInterruptPaysTheColdCostOnceAPollingLoopNever) {
  auto doc = ideal_scenario();
  doc["host"]["cqe_cost"] = "same_code";
  doc["host"]["cqe_work_ns"] = 100;
  doc["host"]["cqe_cold_ns"] = 1000;
  doc["jobs"][0]["iodepth"] = 1;  // one CQE per interrupt
  auto irq = run(doc);
  const int64_t n = total(irq, "completions");
  ASSERT_GT(n, 1000);
  EXPECT_NEAR(busy_ns(irq, "hardirq"), 1100 * n, 1100);
  doc["policy"] = {{"name", "poll"}};
  doc["jobs"][0]["hipri"] = true;
  doc["host"]["poll_empty_check_ns"] = 50;  // a polling pass must take time
  auto poll = run(doc);
  // The polling application: 100 per CQE and 50 per look at the CQ, never the cold cost.
  const int64_t looks = total(poll, "poll_empty") + total(poll, "poll_useful");
  const int64_t cqes = total(poll, "completions");
  ASSERT_GT(cqes, 1000);
  EXPECT_NEAR(busy_ns(poll, "app"), 100 * cqes + 50 * looks, 150);
}

// ---- item 5: where the completion reaches the task ----------------------------------------

nlohmann::json posting_scenario(const std::string& engine, const std::string& posting) {
  auto doc = ideal_scenario();
  doc["host"][engine]["post_per_io_ns"] = 100;
  doc["host"][engine]["completion"] = posting;
  doc["host"]["task_work_add_ns"] = 10;
  doc["jobs"][0]["ioengine"] = engine;
  doc["jobs"][0]["iodepth"] = 16;
  doc["jobs"][0]["iodepth_batch_submit"] = 16;
  doc["jobs"][0]["iodepth_batch_complete_min"] = 16;
  return doc;
}

TEST(CompletionPosting, InTheTaskTheJobPostsAndTheInterruptOnlyQueuesTaskWork) {
  auto completer = run(posting_scenario("io_uring", "in_completer_wake_at_min"));
  const int64_t n = total(completer, "completions");
  ASSERT_GT(n, 1000);
  EXPECT_NEAR(busy_ns(completer, "hardirq"), 100 * n, 1600);
  EXPECT_EQ(busy_ns(completer, "app"), 0);
  auto task = run(posting_scenario("io_uring", "in_task_wake_at_min"));
  EXPECT_NEAR(busy_ns(task, "hardirq"), 10 * total(task, "completions"), 160);
  EXPECT_NEAR(busy_ns(task, "app"), 100 * total(task, "completions"), 1600);
}

TEST(CompletionPosting, WakingAtEveryHandOffSwitchesTheWaiterInMoreOften) {
  for (const char* engine : {"libaio", "io_uring"}) {
    auto at_min = posting_scenario(engine, std::string(engine) == "libaio" ? "in_completer_wake_at_min" : "in_task_wake_at_min");
    at_min["host"]["context_switch_ns"] = 1000;
    auto each = at_min;
    each["host"][engine]["completion"] = std::string(engine) == "libaio" ? "in_completer_wake_each" : "in_task_wake_each";
    auto r_min = run(at_min);
    auto r_each = run(each);
    // At the minimum: one switch-in per 16 I/Os (plus posting in the task for io_uring).
    const int64_t posting = std::string(engine) == "io_uring" ? 100 : 0;
    const int64_t ios = r_min["aggregate"]["ios"].get<int64_t>();
    EXPECT_NEAR(busy_ns(r_min, "app") - posting * ios, 1000 * ios / 16, 2000) << engine;
    // At every hand-off: a switch-in per interrupt that finds the job waiting (the
    // device completes the 16 a few at a time).
    EXPECT_GT(busy_ns(r_each, "app") - posting * r_each["aggregate"]["ios"].get<int64_t>(),
              2 * 1000 * r_each["aggregate"]["ios"].get<int64_t>() / 16) << engine;
  }
}

TEST(CompletionPosting, AJobsChoiceOverridesTheHostsAndBadWordsNameTheirPath) {
  auto doc = posting_scenario("io_uring", "in_completer_wake_at_min");
  doc["jobs"][0]["completion"] = "in_task_wake_at_min";
  auto r = run(doc);
  EXPECT_GT(busy_ns(r, "app"), 0);
  doc["jobs"][0]["completion"] = "sometimes";
  auto loaded = load_scenario_json(doc, LoadOptions{});
  ASSERT_TRUE(std::holds_alternative<InputError>(loaded));
  EXPECT_EQ(std::get<InputError>(loaded).path, "/jobs/0/completion");
  doc = ideal_scenario();
  doc["host"]["timer_slack"] = "never";
  loaded = load_scenario_json(doc, LoadOptions{});
  ASSERT_TRUE(std::holds_alternative<InputError>(loaded));
  EXPECT_EQ(std::get<InputError>(loaded).path, "/host/timer_slack");
}

// ---- the engine's calls: one per submitted batch; a wait in it or in a call of its own ---

// One job on the ideal host whose only cost is 1000 ns per io_uring_enter / io_submit /
// io_getevents: the application's CPU time counts the calls.
nlohmann::json calls_scenario(const char* engine, uint32_t iodepth, uint32_t batch, bool submit_and_wait) {
  auto doc = ideal_scenario();
  doc["host"][engine]["syscall_ns"] = 1000;
  doc["jobs"][0]["ioengine"] = engine;
  doc["jobs"][0]["iodepth"] = iodepth;
  doc["jobs"][0]["iodepth_batch_submit"] = batch;
  if (submit_and_wait) doc["jobs"][0]["submit_and_wait"] = true;
  return doc;
}

TEST(EngineCalls, AtDepthOneFioEntersTwicePerIoAndTIoUringOnce) {
  // Submit, then wait for it: fio commits in one call and waits in another (io_uring's
  // CQ is read from user space, libaio's io_getevents that slept returns the event);
  // t/io_uring submits and waits in one io_uring_enter.
  for (auto [engine, sw, calls] : {std::tuple{"io_uring", false, 2}, {"io_uring", true, 1}, {"libaio", false, 2}}) {
    auto r = run(calls_scenario(engine, 1, 1, sw));
    const int64_t ios = r["aggregate"]["ios"].get<int64_t>();
    ASSERT_GT(ios, 1000);
    EXPECT_NEAR(busy_ns(r, "app"), calls * 1000 * ios, 2000) << engine << " submit_and_wait " << sw;
  }
}

TEST(EngineCalls, EveryBatchIsACallOfItsOwnEvenBackToBack) {
  // Depth 16 refilled in batches of 4: each batch an io_uring_enter of its own (back to
  // back in fio's loop, which refills before it reaps); with submit_and_wait every wait
  // is inside a submitting call, so the calls are the batches alone.
  auto r = run(calls_scenario("io_uring", 16, 4, true));
  const int64_t ios = r["aggregate"]["ios"].get<int64_t>();
  ASSERT_GT(ios, 1000);
  EXPECT_NEAR(busy_ns(r, "app"), 1000 * ios / 4, 4000);
  // Batches of one: a call per I/O.
  r = run(calls_scenario("io_uring", 16, 1, true));
  EXPECT_NEAR(busy_ns(r, "app"), 1000 * r["aggregate"]["ios"].get<int64_t>(), 4000);
}

// The application's segments of job j#0 in a run's trace, in time order: (kind, start us,
// length us). A segment an interrupt preempted shows as two.
std::vector<std::tuple<std::string, double, double>> job_segments(const nlohmann::json& doc) {
  RunOptions o;
  std::ostringstream trace;
  o.trace_out = &trace;
  o.trace_from_us = 0;
  o.trace_to_us = doc["duration_us"].get<int64_t>();
  run_scenario(testing::load_or_fail(doc), o);
  std::vector<std::tuple<std::string, double, double>> out;
  const nlohmann::json events = nlohmann::json::parse(trace.str())["traceEvents"];
  for (const auto& e : events) {
    const std::string name = e.value("name", "");
    if (name.rfind("j#0 ", 0) == 0) out.emplace_back(name.substr(4), e["ts"].get<double>(), e["dur"].get<double>());
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return std::get<1>(a) < std::get<1>(b); });
  return out;
}

TEST(EngineCalls, TIoUringReapsAfterEveryCallFioOnlyOnceTheRingIsFull) {
  // Depth 8 in batches of 2, each call 1 us, a reap 100 ns per CQE, a 1.5 us device: the
  // first two complete at 2.5 us, inside the third call. t/io_uring reaps what its CQ
  // ring holds after every call: its first reap starts at 3 us and takes those two. fio
  // refills the ring first (a fourth call, to 4 us) and reaps when it is full: four.
  auto doc = calls_scenario("io_uring", 8, 2, true);
  doc["duration_us"] = 40;
  doc["warmup_us"] = 0;
  doc["host"]["io_uring"]["reap_per_io_ns"] = 100;
  doc["jobs"][0]["iodepth_batch_complete_min"] = 2;
  doc["drives"][0]["profile"]["units"] = 64;
  doc["drives"][0]["profile"]["read"]["mean_ns"] = 1500;
  auto first_reap = [](const auto& segs) {
    for (const auto& [kind, start, length] : segs)
      if (kind == "reap") return std::pair{start, length};
    return std::pair{-1.0, -1.0};
  };
  auto [start, length] = first_reap(job_segments(doc));
  EXPECT_DOUBLE_EQ(start, 3.0);
  EXPECT_DOUBLE_EQ(length, 0.2);
  doc["jobs"][0]["submit_and_wait"] = false;
  std::tie(start, length) = first_reap(job_segments(doc));
  EXPECT_DOUBLE_EQ(start, 4.0);
  EXPECT_DOUBLE_EQ(length, 0.4);
}

TEST(EngineCalls, OnlyIoUringSubmitsAndWaitsInOneCall) {
  auto doc = calls_scenario("libaio", 1, 1, true);
  auto loaded = load_scenario_json(doc, LoadOptions{});
  ASSERT_TRUE(std::holds_alternative<InputError>(loaded));
  EXPECT_EQ(std::get<InputError>(loaded).path, "/jobs/0/submit_and_wait");
  doc["jobs"][0]["submit_and_wait"] = "yes";
  loaded = load_scenario_json(doc, LoadOptions{});
  ASSERT_TRUE(std::holds_alternative<InputError>(loaded));
  EXPECT_EQ(std::get<InputError>(loaded).path, "/jobs/0/submit_and_wait");
}

}  // namespace
}  // namespace nvmesim
