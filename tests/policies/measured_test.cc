#include "policies/measured.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <tuple>

#include "tests/policies/fake_queue_env.h"

namespace nvmesim::policy {
namespace {

using testing::FakeQueueEnv;
using Kind = ThreadStep::Kind;

// Small windows keep the scripts short: 16 completions, hold 2, back-off 2. The steps are
// scripted on the queue's own count, every window opening at its first drain (drive_pace
// 0, try_after_turnover 0, the per-queue rule); the tests of the two options set them.
// Ties off (tie_wakeups 0): these scripts are of the margin's rule; the tie's tests set it.
MeasuredParams small() {
  return {.window = 16, .enter_gap_ns = 10000, .inflight_low = 3, .interval_us = 30, .margin_1024 = 32,
          .behind_slack_us = 20, .hold_windows = 2, .backoff_windows = 2, .drive_pace = 0,
          .try_after_turnover = 0, .tie_wakeups = 0};
}

// small() with one parameter set (the tests of drive_pace and try_after_turnover).
MeasuredParams small_with(int64_t MeasuredParams::*field, int64_t value) {
  MeasuredParams p = small();
  p.*field = value;
  return p;
}

// A hard IRQ `gap` after the last that finds `found` CQEs, leaving `inflight_after`.
void irq(MeasuredPolicy& p, FakeQueueEnv& q, uint32_t found, uint32_t inflight_after, Duration gap) {
  q.advance(gap);
  q.pending = found;
  q.inflight_ = inflight_after + found;
  p.on_interrupt(q);
}

// A thread pass `gap` after the last that finds `found` CQEs (0: an empty pass).
ThreadStep pass(MeasuredPolicy& p, FakeQueueEnv& q, uint32_t found, uint32_t inflight_after, Duration gap) {
  q.advance(gap);
  q.pending = found;
  q.inflight_ = inflight_after + found;
  return p.on_thread(q);
}

// An interrupt window of 16 completions, 4 per interrupt, `gap` apart: D_irq = 3 x gap
// (the window opens at its first drain; 30 us by default, a pace of 1.9 us), ending with
// `inflight_after` inflight.
void irq_window(MeasuredPolicy& p, FakeQueueEnv& q, uint32_t inflight_after, Duration gap = Duration::us(10)) {
  for (int i = 0; i < 4; ++i) irq(p, q, 4, inflight_after, gap);
}

// A try, started by an interrupt window (D_irq = 3 x gap).
void start_a_try(MeasuredPolicy& p, FakeQueueEnv& q, Duration gap = Duration::us(10)) {
  irq_window(p, q, 40, gap);
  ASSERT_EQ(p.mode(), "poll_try");
}

// A hold, won by a try of 16 in 20 us (8 a pass, 10 us apart) against D_irq 30 us.
void start_a_hold(MeasuredPolicy& p, FakeQueueEnv& q) {
  irq_window(p, q, 40);
  EXPECT_EQ(pass(p, q, 8, 40, Duration::us(10)).kind, Kind::resched);
  EXPECT_EQ(pass(p, q, 8, 40, Duration::us(10)).kind, Kind::resched);
  ASSERT_EQ(p.mode(), "poll_hold");
}

// A hold window of 16 in 2 x gap (8 a pass); the last pass's step.
Kind paced_hold_window(MeasuredPolicy& p, FakeQueueEnv& q, Duration gap) {
  EXPECT_EQ(pass(p, q, 8, 40, gap).kind, Kind::resched);
  return pass(p, q, 8, 40, gap).kind;
}

// A first failed try: backing off.
void expect_first_backoff(const MeasuredPolicy& p) {
  EXPECT_EQ(p.mode(), "backoff");
  EXPECT_EQ(p.failures(), 1u);
}

// The last mode change's reason says `why`.
void expect_reason(const FakeQueueEnv& q, const std::string& why) {
  ASSERT_FALSE(q.modes.empty());
  EXPECT_NE(q.modes.back().reason.find(why), std::string::npos) << q.modes.back().reason;
}

// A hold that failed (step 3) for the reason `why`: unmasked, backing off for the first time.
void expect_hold_failed(const MeasuredPolicy& p, const FakeQueueEnv& q, const std::string& why) {
  expect_first_backoff(p);
  EXPECT_FALSE(q.masked);
  EXPECT_EQ(q.counters_.backoffs, 1u);
  expect_reason(q, why);
}

TEST(MeasuredPolicy, ParamsAndChecks) {
  const auto& k = kParamSpecs<MeasuredPolicy::Params>;
  ASSERT_EQ(k.size(), 15u);
  EXPECT_EQ(k[0].name, "window");
  EXPECT_EQ(k[0].default_value, 1024);
  EXPECT_EQ(k[8].name, "halves_1024");
  EXPECT_EQ(k[8].default_value, 1024);
  EXPECT_EQ(k[9].name, "tail_quarter_octaves");
  EXPECT_EQ(k[9].default_value, 2);
  EXPECT_EQ(k[10].name, "tail_max_quarter_octaves");
  EXPECT_EQ(k[10].default_value, 12);
  EXPECT_EQ(k[11].name, "tail_windows");
  EXPECT_EQ(k[11].default_value, 2);
  EXPECT_EQ(k[12].name, "drive_pace");
  EXPECT_EQ(k[12].default_value, 1);
  EXPECT_EQ(k[13].name, "try_after_turnover");
  EXPECT_EQ(k[13].default_value, 1);
  EXPECT_EQ(k[14].name, "tie_wakeups");
  EXPECT_EQ(k[14].default_value, 2);
  EXPECT_TRUE(MeasuredPolicy::kWatchesLatency);
  EXPECT_FALSE(MeasuredPolicy::check({}, 1024));
  const auto deep = MeasuredPolicy::check({.inflight_low = 1024}, 1024);
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->param, "inflight_low");
}

// 1: completions further apart than enter_gap_ns (16 in 3 x 55 us: 10.3 us) only start
// the next window: interrupts as B0, forever, however deep the queue.
TEST(MeasuredPolicy, SparseCompletionsNeverTry) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  for (int w = 0; w < 10; ++w) irq_window(p, q, 500, Duration::us(55));
  EXPECT_EQ(p.mode(), "irq_measure");
  EXPECT_FALSE(q.did("mask"));
  EXPECT_EQ(q.counters_.irq_useful, 40u);
  EXPECT_TRUE(q.modes.empty());
}

// 2 -> 3 -> 1: a try that drains its window faster than the interrupts did holds for
// hold_windows windows, then unmasks and measures interrupts again.
TEST(MeasuredPolicy, AFasterTryHoldsThenMeasuresAgain) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  irq_window(p, q, 40);
  ASSERT_EQ(p.mode(), "poll_try");
  EXPECT_TRUE(q.did("mask") && q.did("wake"));
  // 16 completions in 20 us (8 per pass, 10 us apart) against 30 us: faster by > 1/32.
  EXPECT_EQ(pass(p, q, 8, 40, Duration::us(10)).kind, Kind::resched);
  EXPECT_EQ(pass(p, q, 8, 40, Duration::us(10)).kind, Kind::resched);
  ASSERT_EQ(p.mode(), "poll_hold");
  EXPECT_EQ(p.failures(), 0u);
  // Hold two windows of 16, then stop polling.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(pass(p, q, 8, 40, Duration::us(10)).kind, Kind::resched);
  EXPECT_EQ(pass(p, q, 8, 40, Duration::us(10)).kind, Kind::park);
  EXPECT_EQ(p.mode(), "irq_measure");
  EXPECT_FALSE(q.masked);
  ASSERT_EQ(q.modes.size(), 3u);
  EXPECT_EQ(q.modes[1].to, "poll_hold");
  EXPECT_EQ(q.modes[2].to, "irq_measure");
}

// 2 -> 4: a try whose window is not faster by the margin fails, unmasks and backs off
// backoff_windows windows of interrupts (no try in them even above the watermark), doubled
// by a second failure in a row.
TEST(MeasuredPolicy, ASlowerTryBacksOffLongerEachTime) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  irq_window(p, q, 40);
  ASSERT_EQ(p.mode(), "poll_try");
  // 16 in 30 us: as fast as the interrupts, not faster by the margin.
  EXPECT_EQ(pass(p, q, 8, 40, Duration::us(15)).kind, Kind::resched);
  EXPECT_EQ(pass(p, q, 8, 40, Duration::us(15)).kind, Kind::park);
  EXPECT_EQ(p.mode(), "backoff");
  EXPECT_FALSE(q.masked);
  EXPECT_EQ(q.counters_.backoffs, 1u);
  q.clear_ops();
  irq_window(p, q, 40);  // back-off window 1 of 2
  irq_window(p, q, 40);  // 2 of 2: measuring again
  EXPECT_EQ(p.mode(), "irq_measure");
  EXPECT_FALSE(q.did("mask"));
  irq_window(p, q, 40);  // a full window above the watermark: the next try
  ASSERT_EQ(p.mode(), "poll_try");
  EXPECT_EQ(pass(p, q, 16, 40, Duration::us(40)).kind, Kind::park);  // slower again
  EXPECT_EQ(p.failures(), 2u);
  for (int w = 0; w < 3; ++w) irq_window(p, q, 40);
  EXPECT_EQ(p.mode(), "backoff") << "the second back-off is 4 windows";
  irq_window(p, q, 40);
  EXPECT_EQ(p.mode(), "irq_measure");
}

// 1: exactly enter_gap_ns apart on average is dense enough (16 in 160 us).
TEST(MeasuredPolicy, TheEnterGapIsInclusive) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  irq(p, q, 1, 40, Duration::us(1));  // opens the window
  for (int i = 0; i < 15; ++i) irq(p, q, 1, 40, Duration::ns(10667));
  EXPECT_EQ(p.mode(), "irq_measure") << "16 in 160.005 us: 10.0003 us apart";
  MeasuredPolicy r(small());
  FakeQueueEnv q2;
  irq(r, q2, 1, 40, Duration::us(1));
  for (int i = 0; i < 15; ++i) irq(r, q2, 1, 40, Duration::ns(i < 10 ? 10667 : 10666));
  EXPECT_EQ(r.mode(), "poll_try") << "16 in exactly 160 us";
}

// 2: a try that falls behind the interrupt pace by more than the slack, counted from its
// first drain, fails at once, on an empty pass, without waiting for its window to fill.
TEST(MeasuredPolicy, ATryBehindThePaceFailsEarly) {
  MeasuredParams prm = small();  // behind_slack_us 20
  prm.enter_gap_ns = 100000;
  MeasuredPolicy p(prm);
  FakeQueueEnv q;
  start_a_try(p, q, Duration::us(100));  // D_irq 300 us for 16
  EXPECT_EQ(pass(p, q, 0, 40, Duration::us(50)).kind, Kind::sleep);   // nothing yet: no pace
  EXPECT_EQ(pass(p, q, 2, 40, Duration::us(5)).kind, Kind::resched);  // the window opens: 2
  EXPECT_EQ(pass(p, q, 0, 40, Duration::us(55)).kind, Kind::sleep);   // 2 in 55 us: (55 - 20) x 16 < 2 x 300
  EXPECT_EQ(pass(p, q, 0, 40, Duration::us(5)).kind, Kind::park);     // 2 in 60 us: behind
  expect_first_backoff(p);
  expect_reason(q, "poll try: 2 in 115 us against 16 in 300 us by interrupts, behind their pace since its first "
                   "drain by more than 20 us");
}

// 2: a try that has found nothing yet is not behind, but it fails once it can no longer
// win (a window must fill in under 30 x 992/1024 = 29.06 us).
TEST(MeasuredPolicy, ATryFailsOnceItCannotWin) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  start_a_try(p, q);
  EXPECT_EQ(pass(p, q, 0, 40, Duration::us(29)).kind, Kind::sleep);  // 0 in 29 us: can still win
  EXPECT_EQ(pass(p, q, 0, 40, Duration::ns(100)).kind, Kind::park);   // 0 in 29.1 us: cannot
  expect_first_backoff(p);
  expect_reason(q, "poll try: 0 in 29 us against 16 in 30 us by interrupts, not faster by the margin");
}

// 2: completions that come in a burst late in the window (an application reaping and
// submitting in batches) are not judged before the first: nothing for 25 us (beyond the
// slack), then the whole window, wins.
TEST(MeasuredPolicy, ABurstyTryIsJudgedOnItsWindow) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  start_a_try(p, q);
  EXPECT_EQ(pass(p, q, 0, 40, Duration::us(25)).kind, Kind::sleep);
  EXPECT_EQ(pass(p, q, 16, 40, Duration::us(3)).kind, Kind::resched);
  EXPECT_EQ(p.mode(), "poll_hold");
}

// 1 -> 2: an interrupt window whose pace drifts (its second half at half the first's pace:
// 16 in 25 us, the halves putting a window at 20 and 40 us) says less about the next
// window than the margin assumes; a try must win by the halves' spread too (20 us): fill
// its window within 5 us of its start. 16 in 4 us wins; 8 in 6 us can no longer win.
TEST(MeasuredPolicy, ADriftingPaceMustBeBeatenByItsHalvesSpread) {
  auto drifting = [](MeasuredPolicy& p, FakeQueueEnv& q) {
    irq(p, q, 4, 40, Duration::us(10));  // opens the window: these 4 are in neither half
    irq(p, q, 4, 40, Duration::us(5));   // half: 4 in 5 us
    irq(p, q, 4, 40, Duration::us(10));
    irq(p, q, 4, 40, Duration::us(10));  // 8 in 20 us
  };
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  drifting(p, q);
  ASSERT_EQ(p.mode(), "poll_try");
  expect_reason(q, "halves 20 us apart");
  EXPECT_EQ(pass(p, q, 8, 40, Duration::us(2)).kind, Kind::resched);
  EXPECT_EQ(pass(p, q, 8, 40, Duration::us(2)).kind, Kind::resched);
  EXPECT_EQ(p.mode(), "poll_hold");

  MeasuredPolicy slow(small());
  FakeQueueEnv q2;
  drifting(slow, q2);
  EXPECT_EQ(pass(slow, q2, 8, 40, Duration::us(3)).kind, Kind::resched);
  EXPECT_EQ(pass(slow, q2, 8, 40, Duration::us(3)).kind, Kind::park) << "6 us: 6 + 20 >= 25";
  expect_first_backoff(slow);
  expect_reason(q2, "poll try: 16 in 6 us against 16 in 25 us by interrupts, not faster by the interrupt window's "
                    "halves' spread (20 us)");

  // halves_1024 0: the margin alone, as before (16 in 20 us against 25 us wins).
  MeasuredParams off = small();
  off.halves_1024 = 0;
  MeasuredPolicy margin_only(off);
  FakeQueueEnv q3;
  drifting(margin_only, q3);
  EXPECT_EQ(pass(margin_only, q3, 8, 40, Duration::us(10)).kind, Kind::resched);
  EXPECT_EQ(pass(margin_only, q3, 8, 40, Duration::us(10)).kind, Kind::resched);
  EXPECT_EQ(margin_only.mode(), "poll_hold");
}

// 1: halves a whole window apart (4 in 1 us, then 8 in 40 us: 4 and 80 us against a window
// of 41 us) leave no pace a try could beat: a new window, no try, no failure; a steady
// window after it starts one.
TEST(MeasuredPolicy, HalvesAWindowApartStartNoTry) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  irq(p, q, 4, 40, Duration::us(10));
  irq(p, q, 4, 40, Duration::us(1));
  irq(p, q, 4, 40, Duration::us(20));
  irq(p, q, 4, 40, Duration::us(20));
  EXPECT_EQ(p.mode(), "irq_measure");
  EXPECT_FALSE(q.did("mask"));
  EXPECT_EQ(p.failures(), 0u);
  irq_window(p, q, 40);
  EXPECT_EQ(p.mode(), "poll_try");
}

// 3: a hold window slower than the interrupts were (by more than the margin: over
// 30.94 us) ends the hold: the drive or the load changed, so measure interrupts again,
// without counting a failure.
TEST(MeasuredPolicy, AHoldWindowNotFasterByTheMarginFails) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  start_a_hold(p, q);
  // The bar the try passed, again: a window of 16 under 30 us x 31/32 = 29.06 us keeps
  // the hold ...
  EXPECT_EQ(paced_hold_window(p, q, Duration::ns(14500)), Kind::resched);
  EXPECT_EQ(p.mode(), "poll_hold");
  // ... one of 29.2 us, faster than the interrupts but not by the margin, is a failure (a
  // try that won on a transient: a write-bound drive whose buffer had room).
  EXPECT_EQ(paced_hold_window(p, q, Duration::ns(14600)), Kind::park);
  expect_hold_failed(p, q, "hold window in 29 us, not faster than interrupts' 30 us by the margin");
}

// 4: a try that wins is no success until its hold has run: failures in its hold count on
// from the failures before it, so a try that keeps winning on a transient backs off
// longer each time; a hold that runs its windows resets them.
TEST(MeasuredPolicy, OnlyAHoldThatRanResetsTheFailures) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  irq_window(p, q, 40);
  EXPECT_EQ(pass(p, q, 16, 40, Duration::us(40)).kind, Kind::park);  // a slower try: failure 1
  ASSERT_EQ(p.failures(), 1u);
  for (int w = 0; w < 3; ++w) irq_window(p, q, 40);  // 2 windows of back-off, then a window
  ASSERT_EQ(p.mode(), "poll_try");
  EXPECT_EQ(pass(p, q, 16, 40, Duration::us(20)).kind, Kind::resched);  // wins
  ASSERT_EQ(p.mode(), "poll_hold");
  EXPECT_EQ(p.failures(), 1u);
  // D_irq is 40 us here (the window after a back-off opens at the back-off's last drain).
  EXPECT_EQ(pass(p, q, 16, 40, Duration::us(40)).kind, Kind::park);  // its hold is not faster
  EXPECT_EQ(p.failures(), 2u);
  for (int w = 0; w < 5; ++w) irq_window(p, q, 40);  // 4 windows of back-off, then a window
  ASSERT_EQ(p.mode(), "poll_try");
  EXPECT_EQ(pass(p, q, 16, 40, Duration::us(20)).kind, Kind::resched);  // wins
  EXPECT_EQ(pass(p, q, 16, 40, Duration::us(20)).kind, Kind::resched);  // hold window 1 of 2
  EXPECT_EQ(p.failures(), 2u);
  EXPECT_EQ(pass(p, q, 16, 40, Duration::us(20)).kind, Kind::park);  // 2 of 2: the hold ran
  EXPECT_EQ(p.mode(), "irq_measure");
  EXPECT_EQ(p.failures(), 0u);
}

// A try window of 16 in 3 x gap (15 us; 20 us since the try began, `first` after it)
// against D_irq 30 us (a win on pace), four per pass: the opening 4 (not the window's,
// for its tail as for its halves), then 8 at `median_us` and 4 at `last_us`: its p50 in
// the bucket of median_us, its p99 in last_us's.
ThreadStep try_window(MeasuredPolicy& p, FakeQueueEnv& q, int64_t median_us, int64_t last_us,
                      Duration gap = Duration::us(5), Duration first = Duration::us(5)) {
  q.latency_ns = 900000;
  pass(p, q, 4, 40, first);
  q.latency_ns = median_us * 1000;
  pass(p, q, 4, 40, gap);
  pass(p, q, 4, 40, gap);
  q.latency_ns = last_us * 1000;
  return pass(p, q, 4, 40, gap);
}

// 2 -> 4: a try that wins on pace but stretches its completions' tail (p99 over p50) by
// more than tail_quarter_octaves beyond the interrupt window's fails: a drive the host now
// outruns (the commands queue in it instead, at equal IOPS). Every latency scaled alike
// (Little's law at the same depth, or a drive working off its state) is no stretch; 255
// does not look.
TEST(MeasuredPolicy, ATryThatStretchesTheTailFails) {
  struct Case {
    int64_t median_us, last_us, tail;
    bool holds;
  };
  for (const Case& c : {Case{40, 50, 2, true},      // p99 2 buckets above p50: within
                        Case{40, 70, 2, false},     // 4 buckets, the p99 above theirs
                        Case{40, 400, 2, false},    // 14 buckets: x10
                        Case{400, 400, 2, true},    // all 6.7x slower than the interrupts': no stretch
                        Case{10, 50, 2, true},      // stretched, the p99 below theirs: the median fell
                        Case{40, 400, 255, true}}) {
    auto params = small();
    params.tail_quarter_octaves = c.tail;
    MeasuredPolicy p(params);
    FakeQueueEnv q;
    q.latency_ns = 60000;  // the interrupt window: every completion in bucket 59, no tail
    start_a_try(p, q);
    try_window(p, q, c.median_us, c.last_us);
    EXPECT_EQ(p.mode(), c.holds ? "poll_hold" : "backoff") << c.median_us << "/" << c.last_us << " us, " << c.tail;
    if (!c.holds) {
      EXPECT_EQ(p.failures(), 1u);
      EXPECT_FALSE(q.masked);
      const std::string want = "but its p99 " +
                               std::to_string(LatencyBuckets::lower(LatencyBuckets::bucket(c.last_us * 1000)) / 1000) +
                               " us over p50 32 us against p99 57 us over p50 57 us";
      expect_reason(q, want);
    }
  }
}

// 1: an interrupt window whose p99 lies more than tail_max_quarter_octaves (12: 8x) above
// its p50 is rare stalls (writes behind a drive's garbage-collection backlog), no
// yardstick: it starts no try, the next window is measured; 255 lets it.
TEST(MeasuredPolicy, AWindowOfRareStallsStartsNoTry) {
  for (const auto& [stall_us, tail_max, tries] :
       {std::tuple{400, 12, true}, std::tuple{600, 12, false}, std::tuple{600, 255, true}}) {
    auto params = small();
    params.tail_max_quarter_octaves = tail_max;
    MeasuredPolicy p(params);
    FakeQueueEnv q;
    q.latency_ns = 900000;  // the opening drain's: not the window's
    irq(p, q, 4, 40, Duration::us(10));
    q.latency_ns = 50000;
    irq(p, q, 4, 40, Duration::us(10));
    irq(p, q, 4, 40, Duration::us(10));
    q.latency_ns = stall_us * 1000;  // 400 us: 12 buckets above 50 us (x8); 600 us: 14
    irq(p, q, 4, 40, Duration::us(10));
    EXPECT_EQ(p.mode(), tries ? "poll_try" : "irq_measure") << stall_us << " us, " << tail_max;
    EXPECT_EQ(q.did("mask"), tries);
  }
}

// A hold window of 16 completions (two passes of 8, each `gap` after the last: the window
// takes both, 20 us against the interrupts' 30 us by default) whose first pass's CQEs took
// 40 us and whose second's took `second_us`: 300 us puts the p99 eight buckets above the
// p50, a tail stretched beyond the interrupts' (every completion of theirs took 60 us) by
// the margin.
ThreadStep hold_window(MeasuredPolicy& p, FakeQueueEnv& q, int64_t second_us, Duration gap = Duration::us(10)) {
  q.latency_ns = 40000;
  pass(p, q, 8, 40, gap);
  q.latency_ns = second_us * 1000;  // half the window: its p99 among them, its p50 not
  return pass(p, q, 8, 40, gap);
}

// A hold of four windows, begun by a try window of 3 x try_gap (15 us against D_irq 30 us).
MeasuredPolicy holding(FakeQueueEnv& q, int64_t tail_windows, Duration try_gap = Duration::us(5),
                       Duration try_first = Duration::us(5)) {
  auto params = small();
  params.hold_windows = 4;
  params.tail_windows = tail_windows;
  MeasuredPolicy p(params);
  q.latency_ns = 60000;
  start_a_try(p, q);
  try_window(p, q, 60, 60, try_gap, try_first);
  EXPECT_EQ(p.mode(), "poll_hold");
  return p;
}

// 3 -> 4: hold windows whose tail stretched beyond the margin, tail_windows (2) in a row,
// are a failure: back off. With tail_windows 1 one such window is.
TEST(MeasuredPolicy, HoldWindowsWhoseTailStretchedAreAFailure) {
  {
    FakeQueueEnv q;
    MeasuredPolicy p = holding(q, 2);
    EXPECT_EQ(hold_window(p, q, 300).kind, Kind::resched);
    EXPECT_EQ(p.mode(), "poll_hold");
    EXPECT_EQ(hold_window(p, q, 300).kind, Kind::park);
    expect_hold_failed(p, q,
                       "2 hold windows in a row, the last's p99 262 us over p50 32 us against the interrupts' p99 57 "
                       "us over p50 57 us");
  }
  {
    FakeQueueEnv q;
    MeasuredPolicy p = holding(q, 1);
    EXPECT_EQ(hold_window(p, q, 300).kind, Kind::park);
    expect_hold_failed(p, q,
                       "hold window's p99 262 us over p50 32 us against the interrupts' p99 57 us over p50 57 us");
  }
}

// 3: one stretched hold window between ordinary ones is a transient of the drive's (a
// burst at its flash targets lifts one window's p99 on every queue of it), not polling's
// doing: the hold goes on, and runs its four windows.
TEST(MeasuredPolicy, OneStretchedHoldWindowIsATransient) {
  FakeQueueEnv q;
  MeasuredPolicy p = holding(q, 2);
  for (const int64_t second_us : {300, 40, 300}) {
    EXPECT_EQ(hold_window(p, q, second_us).kind, Kind::resched) << second_us;
    EXPECT_EQ(p.mode(), "poll_hold");
  }
  EXPECT_EQ(hold_window(p, q, 40).kind, Kind::park);
  EXPECT_EQ(p.mode(), "irq_measure");
  EXPECT_EQ(q.counters_.backoffs, 0u);
  expect_reason(q, "held 4 windows");
}

// 3: the grace of tail_windows is for a hold whose try beat the interrupts by at least the
// tail's allowance (tail_quarter_octaves, 2: its window two quarter-octave buckets or more
// below D_irq's 30 us). A try window of 25.5 us wins by the margin (under 29.06 us) but
// by one bucket only: a write-bound drive's hold, where a stretched tail is a bad trade at
// once. After a try of 15 us, a hold window as slow as 26 us with a stretched tail is the
// drive's transient (the burst that stretched the tail slowed the window too) and gets
// the grace: judged on its own pace, a transient would never get it.
TEST(MeasuredPolicy, OnlyAHoldThatWinsByTheTailsAllowanceGetsTheGrace) {
  static_assert(LatencyBuckets::bucket(30000) - LatencyBuckets::bucket(25500) == 1);
  static_assert(LatencyBuckets::bucket(30000) - LatencyBuckets::bucket(15000) >= 2);  // holding's default try
  {
    FakeQueueEnv q;
    MeasuredPolicy p = holding(q, 2, Duration::ns(8500), Duration::us(1));
    EXPECT_EQ(hold_window(p, q, 300).kind, Kind::park);
    expect_hold_failed(p, q,
                       "hold window's p99 262 us over p50 32 us against the interrupts' p99 57 us over p50 57 us, its "
                       "try in 25 us against 30 us: not ahead by the tail's allowance");
  }
  {
    FakeQueueEnv q;
    MeasuredPolicy p = holding(q, 2);
    EXPECT_EQ(hold_window(p, q, 300, Duration::us(13)).kind, Kind::resched);
    EXPECT_EQ(p.mode(), "poll_hold");
    EXPECT_EQ(hold_window(p, q, 40).kind, Kind::resched);
    EXPECT_EQ(p.mode(), "poll_hold");
    EXPECT_EQ(q.counters_.backoffs, 0u);
  }
}

// 5: the load leaving during polling ends it without a failure.
TEST(MeasuredPolicy, LightLoadStopsPollingWithoutFailure) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  irq_window(p, q, 40);
  EXPECT_EQ(pass(p, q, 8, 40, Duration::us(10)).kind, Kind::resched);
  EXPECT_EQ(pass(p, q, 8, 40, Duration::us(10)).kind, Kind::resched);
  ASSERT_EQ(p.mode(), "poll_hold");
  // Three empty passes in a row below inflight_low end polling; one at or above it restarts the count.
  for (int i = 0; i < 2; ++i) EXPECT_EQ(pass(p, q, 0, 1, Duration::us(30)).kind, Kind::sleep);
  EXPECT_EQ(pass(p, q, 0, 3, Duration::us(30)).kind, Kind::sleep);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(pass(p, q, 0, 1, Duration::us(30)).kind, Kind::sleep);
  EXPECT_EQ(pass(p, q, 0, 1, Duration::us(30)).kind, Kind::park);
  EXPECT_EQ(p.mode(), "irq_measure");
  EXPECT_EQ(p.failures(), 0u);
  EXPECT_EQ(q.counters_.backoffs, 0u);
  // A pause of the hold: the next interrupt that drains CQEs tries at once against the
  // same D_irq (30 us), without a new interrupt window; one that drains none does not.
  q.clear_ops();
  irq(p, q, 0, 40, Duration::us(100));
  EXPECT_EQ(p.mode(), "irq_measure");
  irq(p, q, 2, 40, Duration::us(1));
  ASSERT_EQ(p.mode(), "poll_try");
  EXPECT_TRUE(q.did("mask") && q.did("wake"));
  EXPECT_EQ(pass(p, q, 16, 40, Duration::us(20)).kind, Kind::resched);
  EXPECT_EQ(p.mode(), "poll_hold") << "16 in 20 us against 30 us";
}

// 5: light load in a try is a pause too, but only one in a row: a resumed try that ends
// for light load again leaves the next try to a full interrupt window.
TEST(MeasuredPolicy, OnePauseInARow) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  irq_window(p, q, 40);
  ASSERT_EQ(p.mode(), "poll_try");
  for (int i = 0; i < 3; ++i) pass(p, q, 0, 1, Duration::us(5));
  ASSERT_EQ(p.mode(), "irq_measure");
  irq(p, q, 4, 40, Duration::us(1));
  ASSERT_EQ(p.mode(), "poll_try") << "the pause ends at the next useful interrupt";
  for (int i = 0; i < 3; ++i) pass(p, q, 0, 1, Duration::us(5));
  ASSERT_EQ(p.mode(), "irq_measure");
  irq(p, q, 4, 40, Duration::us(1));
  EXPECT_EQ(p.mode(), "irq_measure") << "a second pause in a row: a whole window first";
  for (int i = 0; i < 3; ++i) irq(p, q, 4, 40, Duration::us(10));
  EXPECT_EQ(p.mode(), "poll_try");
}

// While polling, an interrupt that reaches the handler only counts.
TEST(MeasuredPolicy, InterruptWhilePollingOnlyCounts) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  irq_window(p, q, 40);
  q.clear_ops();
  irq(p, q, 5, 40, Duration::us(1));
  EXPECT_EQ(q.counters_.irq_while_polling, 1u);
  EXPECT_TRUE(q.ops.empty()) << "no drain, no mask";
}

// drive_pace: windows count the drive's completions. A queue that finds 1 CQE per
// interrupt while the drive's other queues consume 3 fills a 16-completion window of the
// drive in 4 gaps (40 us: a pace of 2.5 us, dense enough) and tries; its try wins on the
// drive's pace (16 of the drive's in 20 us) though its own CQEs come no faster. Counted on
// the queue alone, the same interrupts leave its window at 5 of 16.
TEST(MeasuredPolicy, DrivePaceCountsEveryQueueOfTheDrive) {
  for (const bool drive : {false, true}) {
    SCOPED_TRACE(drive ? "drive_pace 1" : "drive_pace 0");
    MeasuredParams params = small();
    params.drive_pace = drive ? 1 : 0;
    MeasuredPolicy p(params);
    FakeQueueEnv q;
    for (int i = 0; i < 5; ++i) {
      q.others_completions += 3;
      irq(p, q, 1, 40, Duration::us(10));
    }
    if (!drive) {
      EXPECT_EQ(p.mode(), "irq_measure");
      continue;
    }
    ASSERT_EQ(p.mode(), "poll_try");
    expect_reason(q, "window of 16 in 40 us");
    for (int i = 0; i < 2; ++i) {
      q.others_completions += 7;
      pass(p, q, 1, 40, Duration::us(10));
    }
    EXPECT_EQ(p.mode(), "poll_try") << "the window opened at the first drain: 9 of the drive's so far";
    q.others_completions += 7;
    pass(p, q, 1, 40, Duration::us(10));
    EXPECT_EQ(p.mode(), "poll_hold");
    expect_reason(q, "poll window in 20 us, interrupts 40 us");
  }
}

// try_after_turnover: the CQEs a try finds of commands submitted before it (stale: 12
// over 30 us, slower than D_irq's 30 us for 16) do not open its window; the first of a
// command submitted in the try does, and the try is judged from there (16 in 10 us: a
// hold). Without it the same passes are the try's window, and it cannot win.
TEST(MeasuredPolicy, TryAfterTurnoverIsJudgedOnCommandsOfTheTry) {
  for (const bool after : {false, true}) {
    SCOPED_TRACE(after ? "try_after_turnover 1" : "try_after_turnover 0");
    MeasuredPolicy p(small_with(&MeasuredParams::try_after_turnover, after ? 1 : 0));
    FakeQueueEnv q;
    start_a_try(p, q);
    q.stale = 12;
    for (int i = 0; i < 3; ++i) pass(p, q, 4, 40, Duration::us(10));
    if (!after) {
      expect_first_backoff(p);
      expect_reason(q, "not faster by the margin");
      continue;
    }
    ASSERT_EQ(p.mode(), "poll_try");
    pass(p, q, 8, 40, Duration::us(10));
    pass(p, q, 8, 40, Duration::us(10));
    EXPECT_EQ(p.mode(), "poll_hold");
    expect_reason(q, "poll window in 10 us, interrupts 30 us");
  }
}

// try_after_turnover: a try that finds only commands of before it gives up once 8 x D_irq
// (240 us) have passed, and says why.
TEST(MeasuredPolicy, TryAfterTurnoverGivesUpAfterEightInterruptWindows) {
  MeasuredParams params = small();
  params.try_after_turnover = 1;
  MeasuredPolicy p(params);
  FakeQueueEnv q;
  start_a_try(p, q);
  q.stale = 1000;
  int passes = 0;
  while (p.mode() == "poll_try" && passes < 40) {
    pass(p, q, 4, 40, Duration::us(10));
    ++passes;
  }
  EXPECT_EQ(passes, 25) << "the first pass past 240 us";
  expect_first_backoff(p);
  expect_reason(q, "no command submitted since it began completed within 8 interrupt windows (250 us)");
}

// drive_pace: the enter gap is judged on the queue's own completions, as an interrupt
// each costs its own core. The drive's window of 16 fills in 4 gaps as before, with the
// queue's own 5 CQEs in it: 5 in 40 us (8 us each) is dense enough, 5 in 52 us (10.4 us)
// is not, though the drive's pace (3.25 us) is.
TEST(MeasuredPolicy, DrivePaceEntersOnTheQueuesOwnDensity) {
  for (const int64_t gap_us : {10, 13}) {
    SCOPED_TRACE(gap_us);
    MeasuredParams params = small();
    params.drive_pace = 1;
    MeasuredPolicy p(params);
    FakeQueueEnv q;
    for (int i = 0; i < 5; ++i) {
      q.others_completions += 3;
      irq(p, q, 1, 40, Duration::us(gap_us));
    }
    EXPECT_EQ(p.mode(), gap_us == 10 ? "poll_try" : "irq_measure");
  }
}

// drive_pace: a window's tail is 10 latencies deep. A window of 256 whose 252 latencies
// (the opening drain's are not the window's) include 4 stalls at 16x: its p99 is a stall
// (16 quarter-octaves over the p50, beyond tail_max_quarter_octaves 12: no try), its
// p96.0 is not. A queue counted on the drive has a quarter of a window to itself with
// four queues a drive, and its p99 would be the 3rd largest.
TEST(MeasuredPolicy, DrivePaceTailIsTenLatenciesDeep) {
  for (const bool drive : {false, true}) {
    SCOPED_TRACE(drive ? "drive_pace 1" : "drive_pace 0");
    MeasuredParams params = small();
    params.window = 256;
    params.drive_pace = drive ? 1 : 0;
    MeasuredPolicy p(params);
    FakeQueueEnv q;
    q.latency_ns = 50000;
    for (int i = 0; i < 63; ++i) irq(p, q, 4, 400, Duration::us(2));
    q.latency_ns = 50000 * 16;
    irq(p, q, 4, 400, Duration::us(2));
    if (!drive) {
      EXPECT_EQ(p.mode(), "irq_measure");
      continue;
    }
    EXPECT_EQ(p.mode(), "poll_try");
    expect_reason(q, "p96.0 49 us over p50 49 us");
  }
}

// drive_pace: a try lost on the halves' spread alone doubles the windows (more evidence
// next time: a window counted on the drive is a few times shorter than the queue's own,
// and its halves the noisier), up to 8 x `window`; per queue the window stays.
TEST(MeasuredPolicy, DrivePaceWindowsDoubleAfterATryLostOnTheHalves) {
  auto drifting = [](MeasuredPolicy& p, FakeQueueEnv& q, int64_t scale) {  // as in ADriftingPace...
    irq(p, q, 4 * scale, 40, Duration::us(10));
    irq(p, q, 4 * scale, 40, Duration::us(5 * scale));
    irq(p, q, 4 * scale, 40, Duration::us(10 * scale));
    irq(p, q, 4 * scale, 40, Duration::us(10 * scale));
  };
  // With tie_wakeups the try's latencies are higher than the interrupts' (no tie): a try
  // that reaches its window's end without a tie fails as one that missed its bar.
  for (const int64_t tie : {0, 2}) {
    SCOPED_TRACE(tie);
    MeasuredParams params = small();
    params.drive_pace = 1;
    params.tie_wakeups = tie;
    MeasuredPolicy p(params);
    FakeQueueEnv q;
    // After a try, the next window opens at the turnover (the first interrupt that finds a
    // command of since), not at a drain: 16 x scale in 30 x scale us from there, the halves
    // at 20 and 40 x scale us (S = 20 x scale), and a try in 12 x scale us misses by S.
    auto drifting_window = [](MeasuredPolicy& p, FakeQueueEnv& q, int64_t scale) {
      for (const int64_t gap : {5, 5, 10, 10}) irq(p, q, 4 * scale, 40, Duration::us(gap * scale));
    };
    for (const int64_t scale : {1, 2, 4, 8}) {
      SCOPED_TRACE(scale);
      if (scale == 1) {
        drifting(p, q, scale);
      } else {
        irq(p, q, 4, 40, Duration::us(1));  // the turnover
        drifting_window(p, q, scale);
        // A window the last try's pace would not beat by its bar is that try's afterglow
        // (DrivePaceSkipsTheAfterglowOfAHold): the next one is measured.
        if (p.mode() == "irq_measure") drifting_window(p, q, scale);
      }
      ASSERT_EQ(p.mode(), "poll_try");
      const int64_t try_us = scale == 1 ? 3 : 12 * scale;
      q.latency_ns = tie > 0 ? 100000 : 0;
      pass(p, q, 8 * scale, 40, Duration::us(try_us));
      pass(p, q, 8 * scale, 40, Duration::us(try_us));
      q.latency_ns = 0;
      expect_reason(q, "halves' spread");
      if (tie > 0) expect_reason(q, ", nor tied (");
      if (scale == 8) break;
      // More evidence at once: measuring again with no back-off and no failure counted.
      EXPECT_EQ(p.mode(), "irq_measure");
      EXPECT_EQ(q.counters_.backoffs, 0u);
      expect_reason(q, ", windows of " + std::to_string(32 * scale) + " from now on");
    }
    // At 8 x `window` the windows grow no more, and the try lost on the halves backs off.
    expect_first_backoff(p);
    EXPECT_EQ(q.modes.back().reason.find("from now on"), std::string::npos) << q.modes.back().reason;
  }
}

// drive_pace: a try that wins at the drive's count c holds until the drive's count
// reaches a multiple of hold_windows x window (32 here) at least two multiples on, (c / 32
// + 2) x 32, whatever the queue's own count: the drive's queues that hold end together,
// and measure interrupts again together. A try won at 32, 40 or 56 holds to 96. The next
// hold runs twice as long (to (c / 32 + 4) x 32) after one that ran its course.
TEST(MeasuredPolicy, DrivePaceHoldsEndOnTheDrivesGrid) {
  for (const uint64_t others : {0u, 8u, 24u}) {
    SCOPED_TRACE(others);
    MeasuredPolicy p(small_with(&MeasuredParams::drive_pace, 1));
    FakeQueueEnv q;
    start_a_try(p, q);  // the drive's count: 16
    q.others_completions = others;
    pass(p, q, 8, 40, Duration::us(10));
    pass(p, q, 8, 40, Duration::us(10));
    ASSERT_EQ(p.mode(), "poll_hold");
    int passes = 0;
    while (p.mode() == "poll_hold" && passes < 100) {
      pass(p, q, 8, 40, Duration::us(10));  // hold windows of 16 in 20 us
      ++passes;
    }
    EXPECT_EQ(q.drive_completions(), 96u);
    EXPECT_EQ(passes, static_cast<int>((96 - 32 - others) / 8));
    expect_reason(q, "held to the drive's 96th completion (every 32, its queues measure again together)");
    EXPECT_FALSE(q.masked);
    irq(p, q, 8, 40, Duration::us(10));  // the turnover: a command of since completed
    irq_window(p, q, 40);                // 16 in 40 us: polling's 20 us beats it
    ASSERT_EQ(p.mode(), "poll_try");
    pass(p, q, 8, 40, Duration::us(10));
    pass(p, q, 8, 40, Duration::us(10));
    ASSERT_EQ(p.mode(), "poll_hold");
    const uint64_t won = q.drive_completions();
    while (p.mode() == "poll_hold" && passes < 200) {
      pass(p, q, 8, 40, Duration::us(10));
      ++passes;
    }
    EXPECT_EQ(q.drive_completions(), (won / 32 + 4) * 32);
  }
}

// drive_pace: right after a hold the drive still holds the commands polling moved into it
// and interrupts keep polling's pace for a while (its afterglow). For backoff_windows
// windows (2 here) one that the last hold window's pace (16 in 20 us) would not beat by
// the margin and the halves' spread is skipped: 16 in 20 us is, 16 in 40 us starts a
// try. Per queue the afterglow window starts a try that cannot win.
TEST(MeasuredPolicy, DrivePaceSkipsTheAfterglowOfAHold) {
  for (const bool drive : {false, true}) {
    SCOPED_TRACE(drive ? "drive_pace 1" : "drive_pace 0");
    MeasuredPolicy p(small_with(&MeasuredParams::drive_pace, drive ? 1 : 0));
    FakeQueueEnv q;
    start_a_try(p, q);
    int passes = 0;
    while (p.mode() != "irq_measure" && passes < 100) {
      pass(p, q, 8, 40, Duration::us(10));
      ++passes;
    }
    ASSERT_EQ(p.mode(), "irq_measure");
    irq(p, q, 4, 40, Duration::us(5));  // drive_pace: the turnover; per queue: opens the window
    for (int i = 0; i < 4; ++i) irq(p, q, 4, 40, Duration::us(5));  // 16 in 20 us: the afterglow
    if (!drive) {
      EXPECT_EQ(p.mode(), "poll_try");
      continue;
    }
    EXPECT_EQ(p.mode(), "irq_measure");
    irq_window(p, q, 40);  // 16 in 40 us
    ASSERT_EQ(p.mode(), "poll_try");
    expect_reason(q, "window of 16 in 40 us by interrupts");
  }
}

// drive_pace: a failed try backs off at least backoff_windows x window of the drive's
// completions, to the next multiple of that (32 here), where the drive's other queues'
// back-offs end too: failed at the drive's 32nd, interrupts to its 64th; at its 40th, to
// its 96th.
TEST(MeasuredPolicy, DrivePaceBacksOffToTheDrivesGrid) {
  for (const uint64_t others : {0u, 8u}) {
    SCOPED_TRACE(others);
    MeasuredPolicy p(small_with(&MeasuredParams::drive_pace, 1));
    FakeQueueEnv q;
    start_a_try(p, q);
    q.others_completions = others;  // before the try's window opens: not in it
    pass(p, q, 8, 40, Duration::us(15));
    pass(p, q, 8, 40, Duration::us(15));  // as in ASlowerTryBacksOffLongerEachTime
    expect_first_backoff(p);
    const uint64_t end = others == 0 ? 64 : 96;
    while (q.drive_completions() + 4 < end) {
      irq(p, q, 4, 40, Duration::us(10));
      ASSERT_EQ(p.mode(), "backoff") << q.drive_completions();
    }
    irq(p, q, 4, 40, Duration::us(10));
    EXPECT_EQ(q.drive_completions(), end);
    EXPECT_EQ(p.mode(), "irq_measure");
    expect_reason(q, "back-off of 2 windows done, at the drive's " + std::to_string(end) + "th completion");
  }
}

// drive_pace: a hold window counts `window` of the queue's own completions (a drive's
// window is a few times shorter in time, and one in a few dozen missed the margin by
// chance) and is judged on the drive's pace in it: 16 own in 40 us passes with 48 of its
// siblings' in it (64 of the drive's in 40 us against 16 in 30 us), and fails alone.
TEST(MeasuredPolicy, DrivePaceHoldWindowsCountTheQueuesOwnCompletions) {
  MeasuredParams params = small();
  params.drive_pace = 1;
  params.hold_windows = 64;  // the grid far off
  MeasuredPolicy p(params);
  FakeQueueEnv q;
  start_a_try(p, q);
  pass(p, q, 8, 40, Duration::us(10));
  pass(p, q, 8, 40, Duration::us(10));
  ASSERT_EQ(p.mode(), "poll_hold");
  for (int i = 0; i < 4; ++i) {
    q.others_completions += 24;
    pass(p, q, 8, 40, Duration::us(20));
  }
  EXPECT_EQ(p.mode(), "poll_hold");
  pass(p, q, 8, 40, Duration::us(20));
  pass(p, q, 8, 40, Duration::us(20));
  expect_hold_failed(p, q, "hold window in 40 us for 16 of the drive's completions, not faster than interrupts' 30 us "
                           "for 16 by the margin");
}

// drive_pace: two queues of one drive, sharing its count, its word and the clock. Each
// step of one queue is followed by sync(), as the drive's other queue sees it.
struct TwoQueues {
  MeasuredPolicy p1, p2;
  FakeQueueEnv q1, q2;
  uint64_t word = 0;
  explicit TwoQueues(MeasuredParams params = small_with(&MeasuredParams::drive_pace, 1)) : p1(params), p2(params) {
    q1.share_drive_word(word);
    q2.share_drive_word(word);
  }
  void sync() {
    q1.others_completions = q2.counters_.completions;
    q2.others_completions = q1.counters_.completions;
    q1.t = q2.t = std::max(q1.t, q2.t);
  }
  // Both queues' interrupt windows, interleaved: 4 CQEs each, `gaps` apart (10 us: both
  // windows of 16 of the drive's completions fill in 20 us, D_irq 20 us), and both try.
  void both_try(std::array<int64_t, 3> gaps = {10, 10, 10}) {
    for (const int64_t gap : gaps) {
      irq(p1, q1, 4, 40, Duration::us(gap));
      sync();
      irq(p2, q2, 4, 40, Duration::zero());
      sync();
    }
    ASSERT_EQ(p1.mode(), "poll_try");
    ASSERT_EQ(p2.mode(), "poll_try");
  }
  // q1's try window: 8 CQEs, then 8 more `gap` later (q2 finds none).
  void q1_try(Duration first, Duration gap) {
    pass(p1, q1, 8, 40, first);
    sync();
    pass(p1, q1, 8, 40, gap);
    sync();
  }
};

// drive_pace: the first queue of a drive to decide a try decides it for the drive's queues
// that tried with it: they do as it did at their next pass, whatever their own window says
// (a close call splits them otherwise: one PM9D3a, 4 jobs at QD1024, two queues won by the
// margin and two lost on the halves' spread by a few us, and then measured their polling).
TEST(MeasuredPolicy, DrivePaceQueuesDoAsTheFirstToDecideATry) {
  {
    SCOPED_TRACE("won");
    TwoQueues d;
    d.both_try();
    d.q1_try(Duration::us(5), Duration::us(5));  // 16 in 5 us against 20 us
    ASSERT_EQ(d.p1.mode(), "poll_hold");
    pass(d.p2, d.q2, 0, 40, Duration::zero());
    EXPECT_EQ(d.p2.mode(), "poll_hold");
    EXPECT_TRUE(d.q2.masked);
    expect_reason(d.q2, "polls with the drive's queue that decided first, at its 40th completion, whose try won");
  }
  {
    SCOPED_TRACE("lost on the halves' spread");
    TwoQueues d;
    d.both_try({10, 6, 14});  // D_irq 20 us, its halves 6 and 14 us: S = 16 us
    d.q1_try(Duration::us(1), Duration::us(5));  // 6 us: by the margin, not by S
    ASSERT_EQ(d.p1.mode(), "irq_measure");
    expect_reason(d.q1, "halves' spread");
    pass(d.p2, d.q2, 0, 40, Duration::zero());
    EXPECT_EQ(d.p2.mode(), "irq_measure");
    EXPECT_FALSE(d.q2.masked);
    EXPECT_EQ(d.q2.counters_.backoffs, 0u);
    expect_reason(d.q2, "its try lost on the halves' spread with the drive's queue that decided first, at its 40th "
                        "completion, windows of 32 from now on");
  }
  {
    SCOPED_TRACE("failed");
    TwoQueues d;
    d.both_try();
    d.q1_try(Duration::us(15), Duration::us(15));  // 30 us since the try began: it cannot win
    expect_first_backoff(d.p1);
    pass(d.p2, d.q2, 0, 40, Duration::zero());
    expect_first_backoff(d.p2);
    EXPECT_FALSE(d.q2.masked);
    expect_reason(d.q2, "its try failed with the drive's queue that decided first, at its 40th completion, back-off 2");
    // Both back off to the same multiple of the drive's count: 40 + 2 x 16, up to 96.
    for (int i = 0; i < 7; ++i) {
      irq(d.p1, d.q1, 4, 40, Duration::us(10));
      d.sync();
      irq(d.p2, d.q2, 4, 40, Duration::zero());
      d.sync();
    }
    EXPECT_EQ(d.q2.drive_completions(), 96u);
    EXPECT_EQ(d.p1.mode(), "backoff");  // it drained the 89th to 92nd
    EXPECT_EQ(d.p2.mode(), "irq_measure");
    irq(d.p1, d.q1, 4, 40, Duration::us(10));
    EXPECT_EQ(d.p1.mode(), "irq_measure");
    expect_reason(d.q1, "at the drive's 96th completion");
    expect_reason(d.q2, "at the drive's 96th completion");
  }
}

// drive_pace: a hold is each queue's own: one that fails ends no other hold of its drive
// (a hold that failed by a hair where polling wins by little ended every hold of its drive
// when it decided for them), and neither does a try of the drive's that fails.
TEST(MeasuredPolicy, DrivePaceAFailedHoldOrTryEndsNoOtherHold) {
  MeasuredParams params = small_with(&MeasuredParams::drive_pace, 1);
  params.hold_windows = 64;  // the grid far off
  {
    SCOPED_TRACE("hold failed");
    TwoQueues d(params);
    d.both_try();
    d.q1_try(Duration::us(5), Duration::us(5));
    pass(d.p2, d.q2, 0, 40, Duration::zero());
    ASSERT_EQ(d.p2.mode(), "poll_hold");
    // q1's hold window: 16 of its own in 40 us, the drive's 16 in 40 us against 20 us.
    d.q1_try(Duration::us(20), Duration::us(20));
    expect_hold_failed(d.p1, d.q1, "hold window in 40 us for 16 of the drive's completions");
    EXPECT_EQ(pass(d.p2, d.q2, 8, 40, Duration::us(1)).kind, Kind::resched);
    EXPECT_EQ(d.p2.mode(), "poll_hold");
  }
  {
    SCOPED_TRACE("try failed");
    TwoQueues d(params);
    start_a_try(d.p1, d.q1);  // q2 idle: D_irq 30 us of q1's
    d.sync();
    d.q1_try(Duration::us(10), Duration::us(10));
    ASSERT_EQ(d.p1.mode(), "poll_hold");
    start_a_try(d.p2, d.q2);  // q2's window of 16 of the drive's (q1's count is in it)
    d.sync();
    pass(d.p2, d.q2, 8, 40, Duration::us(15));
    pass(d.p2, d.q2, 8, 40, Duration::us(15));
    expect_first_backoff(d.p2);
    d.sync();
    EXPECT_EQ(pass(d.p1, d.q1, 8, 40, Duration::us(1)).kind, Kind::resched);
    EXPECT_EQ(d.p1.mode(), "poll_hold");
  }
}

// drive_pace: a queue measuring interrupts (it has a D_irq: it tried before) when a try of
// its drive's wins joins the drive's polling at its next useful interrupt: its interrupt
// windows would measure its siblings' polling, which no try of its own can beat.
TEST(MeasuredPolicy, DrivePaceAMeasuringQueueJoinsTheDrivesPolling) {
  TwoQueues d;
  start_a_try(d.p2, d.q2);  // q2 tries alone and loses: back-off, then measures
  d.sync();
  pass(d.p2, d.q2, 8, 40, Duration::us(15));
  pass(d.p2, d.q2, 8, 40, Duration::us(15));
  expect_first_backoff(d.p2);
  while (d.p2.mode() == "backoff") irq(d.p2, d.q2, 4, 40, Duration::us(10));
  d.sync();
  start_a_try(d.p1, d.q1);
  d.sync();
  d.q1_try(Duration::us(10), Duration::us(10));
  ASSERT_EQ(d.p1.mode(), "poll_hold");
  ASSERT_EQ(d.p2.mode(), "irq_measure");
  irq(d.p2, d.q2, 4, 40, Duration::us(1));
  EXPECT_EQ(d.p2.mode(), "poll_hold");
  EXPECT_TRUE(d.q2.masked);
  EXPECT_TRUE(d.q2.did("wake"));
  expect_reason(d.q2, "polls with the drive, whose try won at its ");
}

// Per queue (drive_pace 0) no verdict is left for the drive: the word stays 0.
TEST(MeasuredPolicy, PerQueueLeavesNoVerdict) {
  MeasuredPolicy p(small());
  FakeQueueEnv q;
  start_a_hold(p, q);
  EXPECT_EQ(paced_hold_window(p, q, Duration::us(20)), Kind::park);
  expect_first_backoff(p);
  EXPECT_EQ(q.drive_word(), 0u);
}

// A try's window after start_a_try (D_irq 30 us for 16, its 3 interrupts after the one
// that opened it): it opens 0.2 us in with 4 CQEs, then `rest` passes (CQEs found, gap
// before it; 0 CQEs: an empty pass, the thread sleeps) fill it.
void tied_try(MeasuredPolicy& p, FakeQueueEnv& q, std::initializer_list<std::pair<uint32_t, Duration>> rest) {
  pass(p, q, 4, 40, Duration::ns(200));
  for (const auto& [found, gap] : rest) pass(p, q, found, 40, gap);
}

// 2 -> 3 (tie_wakeups): a try no slower than the interrupt window (16 in 29.7 us against
// 30 us: not faster by the margin's 29.06 us), its latencies no higher, whose thread never
// slept (0 sleeps against 3 interrupts) wins: at an equal pace, fewer wake-ups of the core.
TEST(MeasuredPolicy, ATieWinsOnFewerWakeups) {
  MeasuredPolicy p(small_with(&MeasuredParams::tie_wakeups, 2));
  FakeQueueEnv q;
  start_a_try(p, q);
  tied_try(p, q, {{4, Duration::ns(9900)}, {4, Duration::ns(9900)}, {4, Duration::ns(9900)}});
  ASSERT_EQ(p.mode(), "poll_hold");
  expect_reason(q, "poll window in 29 us, interrupts 30 us, a tie: 0 sleeps against 3 interrupts");
  // tie_wakeups 0: the same window is a failure, by the margin.
  MeasuredPolicy r(small());
  FakeQueueEnv q2;
  start_a_try(r, q2);
  tied_try(r, q2, {{4, Duration::ns(9900)}, {4, Duration::ns(9900)}, {4, Duration::ns(9900)}});
  expect_first_backoff(r);
}

// 2 -> 4 (tie_wakeups): no tie where the thread slept as often per completion as a half of
// the interrupts (2 sleeps x 2 > 3 interrupts), where the window was slower (30.2 us), or
// where its latencies rose (p50 and p99 a bucket above the interrupt window's: a host that
// outruns a write-bound drive queues its commands in the drive at an equal pace).
TEST(MeasuredPolicy, NoTieWithMoreSleepsASlowerPaceOrHigherLatencies) {
  const Duration gap = Duration::ns(9900);
  {
    MeasuredPolicy p(small_with(&MeasuredParams::tie_wakeups, 2));
    FakeQueueEnv q;
    start_a_try(p, q);
    tied_try(p, q, {{0, Duration::us(5)}, {4, Duration::ns(4900)}, {0, Duration::us(5)},
                    {4, Duration::ns(4900)}, {4, gap}});
    expect_first_backoff(p);
    expect_reason(q, "poll try: 16 in 29 us against 16 in 30 us by interrupts, not faster by the margin, nor tied "
                     "(2 sleeps, p99 0 us over p50 0 us, against 3 interrupts, p99 0 us over p50 0 us)");
  }
  {  // one sleep is few enough (1 x 2 <= 3)
    MeasuredPolicy p(small_with(&MeasuredParams::tie_wakeups, 2));
    FakeQueueEnv q;
    start_a_try(p, q);
    tied_try(p, q, {{0, Duration::us(5)}, {4, Duration::ns(4900)}, {4, gap}, {4, gap}});
    EXPECT_EQ(p.mode(), "poll_hold");
  }
  {  // 16 in 30.2 us: 0.2 us slower
    MeasuredPolicy p(small_with(&MeasuredParams::tie_wakeups, 2));
    FakeQueueEnv q;
    irq_window(p, q, 40, Duration::us(10));
    pass(p, q, 4, 40, Duration::ns(1));
    for (int i = 0; i < 3; ++i) pass(p, q, 4, 40, Duration::ns(10066));
    expect_first_backoff(p);
  }
  {  // latencies a bucket higher
    MeasuredPolicy p(small_with(&MeasuredParams::tie_wakeups, 2));
    FakeQueueEnv q;
    q.latency_ns = 60000;
    start_a_try(p, q);
    q.latency_ns = 75000;
    tied_try(p, q, {{4, gap}, {4, gap}, {4, gap}});
    expect_first_backoff(p);
    expect_reason(q, "nor tied");
  }
}

// 3 (tie_wakeups): a hold window not faster by the margin goes on while it ties (not
// slower by the margin: under 30 x 1056 / 1024 = 30.94 us, latencies no higher, fewer
// sleeps), and fails once it is slower by the margin.
TEST(MeasuredPolicy, AHoldGoesOnWhileItTies) {
  MeasuredPolicy p(small_with(&MeasuredParams::tie_wakeups, 2));
  FakeQueueEnv q;
  start_a_hold(p, q);
  // 16 in 30.8 us: no faster than the interrupts, and not slower by the margin.
  EXPECT_EQ(paced_hold_window(p, q, Duration::ns(15400)), Kind::resched);
  EXPECT_EQ(p.mode(), "poll_hold");
  // 16 in 31 us: slower by the margin.
  EXPECT_EQ(paced_hold_window(p, q, Duration::ns(15500)), Kind::park);
  expect_hold_failed(p, q, "hold window in 31 us, not faster than interrupts' 30 us by the margin, nor tied (0 "
                           "sleeps, p99 0 us over p50 0 us, against 3 interrupts, p99 0 us over p50 0 us)");
}

}  // namespace
}  // namespace nvmesim::policy
