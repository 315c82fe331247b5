// Policy D `measured`: IRQ-thread polling where it is measured faster, per queue.
//
// Policy A polls in the IRQ thread whenever inflight reaches inflight_high, and so polls
// where it loses (a queue just above the watermark whose completions then wait for the
// thread's sleep: inflight is not completion density). Policy B keeps polling only where
// it is measured faster, but its polling (an hrtimer and irq_poll in softirq, every
// poll_period) gains less than A's where polling wins. This policy polls as A does and
// decides as B does: a poll window stays only if its completions came faster than the
// interrupt window's before it. All it needs is what the completion path sees: how many
// CQEs each drain finds and when, and the driver's inflight.
//
// States (mode names in brackets); a window is `window` completions (drained CQEs),
// counted from the first drain after the window opened:
//   1. IRQ-measure [irq_measure] Interrupts as B0: drain, count. When a window is full,
//      D_irq = its duration and the pace P = D_irq / window. If P <= enter_gap_ns (the
//      completions come densely enough that an interrupt each is a real share of the
//      core) -> 2 (poll try); else a new window. The window's two halves, each at its own
//      pace, put a whole window at e1 and e2: S = |e1 - e2| x halves_1024 / 1024 is how
//      much this window says about the next one (a drifting or bursty pace: a large S);
//      S >= D_irq (no try could win) -> a new window, no try. The latencies (submission to
//      CQE consumed, in quarter-octave buckets) of the commands submitted and completed
//      in the window give its tail T_irq: how many buckets its p99 lies above its p50;
//      T_irq > tail_max_quarter_octaves -> a new window, no try (a p99 that far above the
//      p50 is rare stalls, e.g. writes waiting for a full buffer while the drive works
//      off garbage collection owed: whether one falls in a window decides its tail, so it
//      is no yardstick for the next).
//   2. Poll-try [poll_try] Mask the vector (disable_irq_nosync), wake the IRQ thread. The
//      thread polls as policy A's: a pending CQE -> drain, cond_resched; none -> fsleep
//      interval_us. Its window opens at its first drain, as an interrupt window does
//      (before that it has measured no pace: its commands are still at the device, or
//      the application holds them between its batches); count n completions over t
//      since then. The try wins if it fills its window with t * 1024 < D_irq * (1024 -
//      margin_1024) and t + S < D_irq (exact integers: faster by the margin and by the
//      halves' spread), and its own completions' tail (p99 over p50) is at most T_irq +
//      tail_quarter_octaves or its p99 no higher than the interrupt window's (polling
//      must not stretch the completions' tail: where it lets the host outrun the drive,
//      e.g. writes on a drive whose write buffer is full, the commands the host no longer
//      holds queue in the drive instead, at equal IOPS; the p50 falls and the p99 rises):
//      - at n >= window: a win -> 3 (success), else a tie (below) -> 3, else 4 (also when
//        only the tail lost);
//      - before that, on an empty pass, behind: t * window > n * D_irq + behind_slack_us
//        * window (slower than the interrupt pace by more than the slack) -> 4 at once;
//      - and once the time since the try began reaches D_irq * (1024 - margin_1024) /
//        1024, or D_irq - S, it can no longer win -> 4 (with tie_wakeups: not while the
//        time since its window opened, at its first drain, is within D_irq: it may tie).
//      Tie (tie_wakeups > 0): a window no slower than D_irq (t <= D_irq; the halves'
//      spread S is no bar here: it guards a win's claim to be faster, where a tie claims
//      no more than equal, and every hold window checks that claim again), whose p50 and
//      p99 buckets are no higher than the interrupt window's, and whose thread slept
//      (empty passes, each an fsleep whose timer wakes it) at most 1 / tie_wakeups as
//      often per completion as the interrupt window took useful interrupts, wins too: the
//      application sees the same pace and latencies, and the core is woken less often
//      (an interrupt is its entry and exit, the remapping unit's work, the handler and
//      the thread's wake-up; a drain after cond_resched wakes nothing). Where interrupts
//      find one or two CQEs each on a drive near its ceiling, a polling thread finds CQEs
//      at nearly every pass: 4 PM9D3a, 8 jobs at QD64, the interrupts bound by the
//      remapping units, poll +2.6-3.0% (under the margin) with a core half as busy. A host
//      that outruns a write-bound drive moves its commands' waits into the drive at an
//      equal pace: its p50 rises (20 -> 49 us on a D7-PS1010 at QD31), and it ties not.
//   3. Poll-hold [poll_hold] Keep polling for hold_windows windows, then unmask -> 1 (a
//      success). Each hold window is measured too and must pass the try's bar again: one
//      that took D_irq * (1024 - margin_1024) / 1024 or more, and does not tie (as in 2,
//      but not slower than D_irq by the margin: t < D_irq * (1024 + margin_1024) / 1024,
//      the mirror of the win's bar, as a steady pace's windows scatter both ways), is a
//      failure -> 4 (polling is no longer faster by the margin, nor as fast and
//      cheaper: the drive or the load changed, or the try won on a
//      transient, e.g. on a write-bound drive while the write buffer still had the room
//      the interrupt window drained, after which the flash sets the pace and the host's
//      writes wait for space in the drive); one whose tail is beyond T_irq +
//      tail_quarter_octaves, its p99 above T_irq's, is a failure -> 4 (the tail grew under
//      polling) -- in tail_windows hold windows in a row where the try beat D_irq by the
//      tail's allowance (its window tail_quarter_octaves buckets or more below D_irq's): a
//      drive the host outruns stretches every window's tail, while a drive's own
//      transient -- a burst at its flash targets that every queue of it sees in the same
//      window -- lifts one window's p99 and not the next's, and that grace is worth its
//      window only where polling wins big. The try says whether it does: the transient
//      that stretched a hold window's tail slows that window too, so judged on its own
//      duration it would get no grace. The pace of a window is a mean and needs no grace.
//      A narrower
//      tail is no sign: polling deep reads moves their queue into the drive, and every
//      latency then nears inflight / IOPS (p50 81 -> 458 us, p99 229 -> 524 us on 4 jobs
//      at QD256 of a PM9D3a, +26% IOPS).
//   4. Failure: unmask, back off: interrupts as B0 for backoff_windows << min(failures,
//      6) windows (failures: consecutive, reset by a hold that ran its hold_windows), then 1.
//   5. Light load: in 2 or 3, low_inflight_checks (3) empty passes in a row with inflight
//      below inflight_low, as policy A's -> unmask, 1 (no failure counted: the load went,
//      not the pace). It is a pause: the next interrupt that drains CQEs starts a try at
//      once against the same D_irq (an application that reaps and submits in batches
//      leaves the driver's queue empty between them however heavy its load); a try that
//      ends for light load again, or fails, leaves the next one to a full window.
// On the drive: two options, on by default since 2026-12-07 (0 and 0 is the per-queue rule;
// docs/policies.md has what each does on the matrices):
//   drive_pace 1: a window counts the CQEs of every I/O queue of the drive (a counter per
//      controller, QueueEnv::drive_completions), not the queue's own; D_irq and every try
//      and hold window are then the drive's pace, seen by each queue. Where the drive's
//      queues share a saturated resource (the platform's interrupt delivery, the drive's
//      messages that its CQE writes wait behind), a queue that polls alone is not faster,
//      and the drive is only when its queues poll together: counted on the drive, their
//      windows fill together (N queues' windows ~N times sooner) and they try together.
//      The queue's own load still gates it (light load, 5); its latencies stay its own.
//      What a window of the drive's changes, for each queue:
//      - 1's enter_gap_ns is judged on the queue's own CQEs in the window (an interrupt
//        each costs the queue's own core: four queues at QD2-4 make the drive's pace dense
//        and each queue's not);
//      - a window's tail is at least kTailDepth latencies deep (tail_quantile: its own
//        share of a window is a quarter of it with four queues a drive, and its p99 the
//        3rd largest, whose rank alone moves it by buckets);
//      - a try lost on the halves' spread alone (2) doubles the measuring windows, up to
//        8 x window (a window of the drive's is a few times shorter in time than the
//        queue's own, and its halves the noisier: more evidence), and measures again at
//        once, without a back-off or a failure counted; at 8 x window it backs off;
//      - the drive's queues change mode together, on a grid of the drive's count: a hold
//        ends when the drive's count reaches (c / G + (2 << h)) x G, G = hold_windows x
//        window, c its count when the try won, h the holds in a row that ran their course
//        (up to 6; a failure resets it): every queue of the drive that holds then ends at
//        the same completion, each hold after a full one about twice as long; a back-off
//        ends at the first multiple of backoff_windows x window past its length (step 4's
//        windows of `window` of the drive's). Holds that end at each queue's own moment
//        leave the first queue measuring interrupts while its siblings poll: its D_irq is
//        their polling pace, it cannot beat it, and the back-offs cascade;
//      - a hold window counts `window` of the queue's own completions and is judged on
//        the drive's pace in it (drive completions in it against D_irq's); its tail at
//        T_irq's quantile;
//      - back on interrupts after a hold or a back-off (settle), the first window opens
//        at the turnover (a completion of a command submitted since), and for up to
//        backoff_windows x window of the drive's completions a window that the last
//        polling pace would beat by less than a try's bar (margin and halves' spread) is
//        skipped: the drive still holds the commands polling moved into it, each interrupt
//        finds a batch, and interrupts keep polling's pace for a while (its afterglow);
//      - the drive's queues decide a try together: the first of them to decide one (won,
//        lost on the halves' spread, failed) leaves that verdict, with the drive's count,
//        in a word per controller (QueueEnv::drive_word); a queue whose try began before
//        it does as it decided at its next pass, and a queue measuring interrupts that has
//        a D_irq of its own joins a hold its drive's try won since. Queues that decide
//        each on their own split on a close call (one PM9D3a, 4 jobs at QD1024: two won by
//        the margin while two lost on the halves' spread by a few us), and one that
//        measures interrupts while the others poll measures their polling, cannot beat
//        it, and backs off. A hold stays each queue's own: its windows are judged on the
//        drive's pace already, and a hold that fails by a hair where polling wins by
//        little (4 PM9D3a, 4 jobs at QD31: 891 against 915 us) ended every hold of its
//        drive when it decided for them (+0.4% against +11.2% with holds of their own).
//   try_after_turnover 1: a try's window opens at the first completion of a command
//      submitted since the try began (QueueEnv::latencies counts only those), not at its
//      first drain: the commands in flight when it began were held back under interrupts
//      (their CQEs behind the drive's messages still queued at its root complex), and
//      their completions measure the interrupts' backlog, not polling. The bars of 2
//      count from that opening; a try whose window has not opened after 8 x D_irq fails.
// While polling, a hard IRQ that still reaches the handler (the lazy disable lets one in)
// counts irq_while_polling and does nothing else.
//
// Integer work per completion, O(1): counts, a multiply-compare per drain, and the
// runner's bucket increment (kWatchesLatency); S and the tail once per window (128-bit
// products, as mul_u64_u64_div_u64; a walk of the buckets). Per-queue state a driver
// could keep: the state, a dozen counters (the window's counts, the queue's own CQEs in
// it, the drive's count at its opening, hold and back-off left or the drive's count they
// end at, settling windows left, the queue's interrupt and empty-pass counts at the
// window's opening, D_irq's window's interrupts), three times, D_irq, S, the winning
// try's window and the last polling pace, T_irq, the window's size, the failure and
// full-hold counts, and the window's latency buckets (as blk-stat's per-window buckets);
// per controller (drive_pace) the completion count and the verdict's word.
//
// Defaults (assumptions, documented in docs/policies.md): window 1024 (a 1024-completion
// mean is within ~1% of the pace at the rates where polling matters, and settles in a few
// ms where B's 8192 take tens), enter_gap_ns 10 000 as policy B's, interval_us 30 and
// inflight_low 3 as policy A's, behind_slack_us 100 (the thread's wake-up and a few
// interval_us sleeps), margin 1/32 (~3%: a try must win by more than the run-to-run noise
// of a steady window), halves_1024 1024 (the halves' spread itself: with a steady pace the
// difference of a try's window and D_irq is about as large as the halves' e1 - e2),
// hold_windows 64, backoff_windows 16, tail_quarter_octaves 2 (a window's p99 from 1024
// completions moves by a bucket between steady windows; two buckets, x1.41, is more than
// that and far less than the x3-4 a drive the host outruns gives: p50 down, p99 up),
// tail_windows 2 (polling deep reads widens the tail by 1-2 buckets of itself, as more of
// the queue waits in the drive, so a transient of the drive's that lifts one window's
// p99 by a third -- seen on all four queues of a D7-PS1010 at once -- crossed the bar in
// one window of a hold and ended it; a stretch polling causes is in every window, and a
// write-bound drive's holds, which win by a few %, get no grace),
// tie_wakeups 2 (half the wake-ups: a clear saving, beyond a window's scatter of a few
// sleeps or interrupts; an interrupt and a timer's wake-up are taken as costing alike),
// tail_max_quarter_octaves 12 (p99 8x p50: steady windows showed 4-8 buckets on deep reads
// and writes from a buffer, windows with writes stalled behind a drive's garbage-collection
// backlog 15-28), drive_pace 1 and try_after_turnover 1 (where a drive's queues share the
// platform's interrupt delivery, only the drive's pace shows polling's gain, and only after
// the turnover; with the drive's verdict both leagues gain as much as per queue, at fewer
// interrupts than policy A's: docs/policies.md).
//
// Runner: eligible queues are I/O queues with a dedicated MSI-X vector and no threaded
// interrupts (as A and B); on_interrupt in hard IRQ, on_thread in the queue's real-time
// IRQ thread. Counters: irq_useful, irq_spurious, irq_while_polling, poll_useful,
// poll_empty, backoffs (policies/api/policy.h: what only the policy can judge).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "policies/api/policy.h"

namespace nvmesim::policy {

// MeasuredPolicy's parameters (defaults are the initialisers).
struct MeasuredParams {
  int64_t window = 1024;
  int64_t enter_gap_ns = 10000;
  int64_t inflight_low = 3;
  int64_t interval_us = 30;
  int64_t margin_1024 = 32;
  int64_t behind_slack_us = 100;
  int64_t hold_windows = 64;
  int64_t backoff_windows = 16;
  int64_t halves_1024 = 1024;
  int64_t tail_quarter_octaves = 2;
  int64_t tail_max_quarter_octaves = 12;
  int64_t tail_windows = 2;
  int64_t drive_pace = 1;
  int64_t try_after_turnover = 1;
  int64_t tie_wakeups = 2;
  static constexpr std::array<ParamField<MeasuredParams>, 15> kFields{{
      {"window", &MeasuredParams::window, 16, 1 << 20, "completions",
       "completions per measuring window, in interrupt and in polling mode"},
      {"enter_gap_ns", &MeasuredParams::enter_gap_ns, 1, 1000000000, "ns",
       "a poll try starts when an interrupt window's completions came on average no more than this apart"},
      {"inflight_low", &MeasuredParams::inflight_low, 1, 65535, "commands",
       "an empty poll pass with inflight below this is a light-load check (three in a row end polling)"},
      {"interval_us", &MeasuredParams::interval_us, 1, 1000000, "us", "fsleep after an empty poll pass"},
      {"margin_1024", &MeasuredParams::margin_1024, 0, 512, "1/1024",
       "a try succeeds, and a hold goes on, while each window takes less than D_irq x (1 - margin_1024/1024)"},
      {"behind_slack_us", &MeasuredParams::behind_slack_us, 0, 1000000, "us",
       "a try that has found CQEs fails early once it is this far behind the interrupt window's pace"},
      {"hold_windows", &MeasuredParams::hold_windows, 1, 1 << 20, "windows",
       "windows of polling after a successful try before measuring interrupts again"},
      {"backoff_windows", &MeasuredParams::backoff_windows, 0, 1 << 20, "windows",
       "windows of interrupts without trying after a failed try, doubled per consecutive failure (up to 64x)"},
      {"halves_1024", &MeasuredParams::halves_1024, 0, 8192, "1/1024",
       "a try must also win by this share of how far apart the interrupt window's two halves put a whole "
       "window (0: by the margin alone)"},
      {"tail_quarter_octaves", &MeasuredParams::tail_quarter_octaves, 0, 255, "quarter-octaves",
       "a try or hold window whose completions' p99 lies more quarter-octave buckets (x1.19 each) above their p50 "
       "than the interrupt window's did, by more than this, and above its p99, fails (255: the tail is not looked "
       "at)"},
      {"tail_max_quarter_octaves", &MeasuredParams::tail_max_quarter_octaves, 0, 255, "quarter-octaves",
       "an interrupt window whose p99 lies more than this many quarter-octave buckets above its p50 starts no try "
       "(255: every window may)"},
      {"tail_windows", &MeasuredParams::tail_windows, 1, 1024, "windows",
       "hold windows in a row whose tail grew (tail_quarter_octaves) before a hold fails, where its try beat the "
       "interrupts by that many quarter-octaves too (1: any one)"},
      {"drive_pace", &MeasuredParams::drive_pace, 0, 1, "0/1",
       "1: every window counts the completions of all the drive's I/O queues, not the queue's own, and holds "
       "and back-offs end on a grid of the drive's count; the first of its queues to decide a try decides it "
       "for the others (a pace of the drive: its queues decide, and measure again, together where "
       "they share a bottleneck)"},
      {"try_after_turnover", &MeasuredParams::try_after_turnover, 0, 1, "0/1",
       "1: a try's window opens at the first completion of a command submitted since the try began (the "
       "commands in flight before it were held back under interrupts), and gives up after 8 interrupt windows "
       "without one"},
      {"tie_wakeups", &MeasuredParams::tie_wakeups, 0, 64, "x",
       "a try no slower than the interrupt window, its p50 and p99 no higher, wins without the margin (a tie) "
       "when its thread slept at most 1/this as often per completion as interrupts came; a hold goes on while "
       "it ties (0: the margin alone)"},
  }};
};

class MeasuredPolicy {
 public:
  static constexpr std::string_view kName = "measured";
  using Params = MeasuredParams;
  static constexpr uint32_t kLowInflightChecks = 3;
  static constexpr uint32_t kMaxBackoffShift = 6;
  static constexpr int64_t kTurnoverWindows = 8;  // try_after_turnover: a try waits at most this many D_irq
  static constexpr uint32_t kMaxHoldShift = 6;    // drive_pace: holds grow to at most 64 x hold_windows
  static constexpr uint32_t kMaxWindowShift = 3;  // drive_pace: windows grow to at most 8 x `window`
  static constexpr bool kUsesVector = true;
  static constexpr bool kAppPolls = false;
  static constexpr bool kWatchesLatency = true;
  static constexpr uint32_t kP50 = 512, kP99 = 1014;  // per 1024
  static constexpr uint64_t kTailDepth = 10;  // drive_pace: the tail is at least this many latencies deep

  static constexpr std::string_view kModeMeasure = "irq_measure";
  static constexpr std::string_view kModeTry = "poll_try";
  static constexpr std::string_view kModeHold = "poll_hold";
  static constexpr std::string_view kModeBackoff = "backoff";

  explicit MeasuredPolicy(const Params& p = {})
      : base_window_(static_cast<uint64_t>(p.window)),
        window_(base_window_),
        enter_gap_ns_(p.enter_gap_ns),
        low_(static_cast<uint32_t>(p.inflight_low)),
        interval_(Duration::us(p.interval_us)),
        margin_(p.margin_1024),
        slack_ns_(p.behind_slack_us * 1000),
        hold_windows_(static_cast<uint64_t>(p.hold_windows)),
        backoff_windows_(static_cast<uint64_t>(p.backoff_windows)),
        halves_(p.halves_1024),
        tail_(static_cast<uint32_t>(p.tail_quarter_octaves)),
        tail_max_(static_cast<uint32_t>(p.tail_max_quarter_octaves)),
        tail_windows_(static_cast<uint32_t>(p.tail_windows)),
        drive_pace_(p.drive_pace != 0),
        after_turnover_(p.try_after_turnover != 0),
        tie_wakeups_(static_cast<uint64_t>(p.tie_wakeups)) {}

  static std::optional<ParamError> check(const Params& p, uint32_t queue_depth) {
    if (p.inflight_low >= static_cast<int64_t>(queue_depth))
      return ParamError{"inflight_low", "measured: inflight_low (" + std::to_string(p.inflight_low) +
                                            ") must be smaller than the queue depth (" +
                                            std::to_string(queue_depth) + ")"};
    return std::nullopt;
  }

  template <QueueEnv Q>
  void on_interrupt(Q& q) {
    auto& c = q.counters();
    if (polling()) {
      ++c.irq_while_polling;
      return;
    }
    const uint32_t n = q.drain();
    if (n == 0) {
      ++c.irq_spurious;
      return;
    }
    ++c.irq_useful;
    if (drive_pace_ && state_ == State::measure && measured_) {  // the drive's try won since: join its polling
      const uint64_t word = q.drive_word();
      if (verdict_of(word) == Verdict::won && verdict_at(word) > phase_from_) {
        q.mask_vector();
        q.wake_thread();
        hold(q, d_irq_ns_, verdict_at(word),
             "measured: polls with the drive, whose try won at its " + std::to_string(verdict_at(word)) +
                 "th completion");
        return;
      }
    }
    if (resume_ && state_ == State::measure) {  // 5: the load is back after a pause
      resume_ = false;
      resumed_ = true;
      return start_try(q, "measured: load back after a light-load pause, a try against the interrupts' " +
                              std::to_string(d_irq_ns_ / 1000) + " us");
    }
    if (drive_pace_ && state_ == State::backoff) {  // 4: back off to the drive's grid
      if (q.drive_completions() < backoff_end_) return;
      settle(q);
      set(q, State::measure, "measured: back-off of " + std::to_string(backoff_total_) +
                                 " windows done, at the drive's " + std::to_string(backoff_end_) + "th completion");
      return restart(q);
    }
    if (await_turnover_) {  // drive_pace: interrupts again; the first window opens at the turnover
      if (q.latencies().total == 0) return;
      await_turnover_ = false;
      return restart(q);
    }
    if (!count(q, n)) return;  // the window is not full yet
    if (settle_left_ > 0) {  // drive_pace: a window polling could not beat, after a hold, is its afterglow
      --settle_left_;
      const int64_t t = (q.now() - start_).count_ns();
      if (!faster_than(hold_pace_ns_, t) || hold_pace_ns_ + halves_spread(q) >= t) return restart(q);
      settle_left_ = 0;
    }
    const Duration took = q.now() - start_;
    if (state_ == State::backoff) {  // 4: one more window of the back-off done
      if (--backoff_left_ > 0) return restart(q);
      set(q, State::measure, "measured: back-off of " + std::to_string(backoff_total_) + " windows done");
      return restart(q);
    }
    // 1: exact, no rounding: D_irq / window <= enter_gap_ns
    if (took.count_ns() > enter_gap_ns_ * static_cast<int64_t>(drive_pace_ ? filled_own_ : window_)) return restart(q);
    const int64_t spread = halves_spread(q);
    if (spread >= took.count_ns()) return restart(q);  // the halves disagree by a window: no pace to beat
    const Tail tail = tail_of(q);
    if (tail.spread() > tail_max_) return restart(q);  // rare stalls set this tail: no yardstick
    d_irq_ns_ = std::max<int64_t>(took.count_ns(), 1);
    measured_ = true;
    irq_wakeups_ = filled_wakeups_;
    irq_count_ = filled_count_;
    spread_ns_ = spread;
    tail_irq_ = tail;
    resumed_ = false;
    start_try(q, "measured: window of " + std::to_string(window_) + " in " + std::to_string(d_irq_ns_ / 1000) +
                     " us by interrupts, at most " + std::to_string(enter_gap_ns_) + " ns apart, its halves " +
                     std::to_string(spread_ns_ / 1000) + " us apart, " + describe(tail_irq_));
  }

  template <QueueEnv Q>
  ThreadStep on_thread(Q& q) {
    if (!polling()) return ThreadStep::park();  // woken with nothing to do
    if (drive_pace_)
      if (const uint64_t word = q.drive_word(); verdict_at(word) > phase_from_) return adopt(q, word);
    auto& c = q.counters();
    if (q.poll_check()) {
      ++c.poll_useful;
      low_checks_ = 0;
      const uint32_t n = q.drain();
      if (state_ == State::try_poll) return judge_try(q, n);
      if (drive_pace_ && q.drive_completions() >= hold_end_) return end_hold(q);  // 3: the drive's grid
      if (!count(q, n)) return ThreadStep::resched();
      const int64_t took = (q.now() - start_).count_ns();  // a hold window is full
      if (drive_pace_) hold_pace_ns_ = per_window(took, filled_count_);
      const Tail tail = tail_of(q);
      if (!hold_faster(took) && !still_ties(took, tail))  // 3: no longer faster by the margin, nor tied
        return fail(q, "hold window in " + std::to_string(took / 1000) + " us" +
                           (drive_pace_ ? " for " + std::to_string(filled_count_) + " of the drive's completions"
                                        : std::string()) +
                           ", not faster than interrupts' " + std::to_string(d_irq_ns_ / 1000) + " us" +
                           (drive_pace_ ? " for " + std::to_string(window_) : std::string()) + " by the margin" +
                           (tie_wakeups_ > 0 ? ", nor tied (" + std::to_string(filled_wakeups_) + " sleeps, " +
                                                   describe(tail) + ", against " + std::to_string(irq_wakeups_) +
                                                   " interrupts, " + describe(tail_irq_) + ")"
                                             : std::string()));
      if (!tail_lost(tail)) {
        tail_lost_ = 0;
      } else if (++tail_lost_ >= tail_windows_ || !wins_by_the_tail(try_ns_)) {  // 3: the tail grew
        std::string why = tail_lost_ > 1 ? std::to_string(tail_lost_) + " hold windows in a row, the last's "
                                         : std::string("hold window's ");
        why += describe(tail) + " against the interrupts' " + describe(tail_irq_);
        if (tail_lost_ < tail_windows_)
          why += ", its try in " + std::to_string(try_ns_ / 1000) + " us against " + std::to_string(d_irq_ns_ / 1000) +
                 " us: not ahead by the tail's allowance";
        return fail(q, why);
      }
      if (!drive_pace_ && --hold_left_ == 0) return end_hold(q);  // 3: the hold is over, a success
      restart(q);
      return ThreadStep::resched();
    }
    ++c.poll_empty;
    const uint32_t inflight = q.inflight();
    if (inflight < low_) {  // 5
      if (++low_checks_ >= kLowInflightChecks) {
        resume_ = !resumed_;  // a pause; one in a row
        set(q, State::measure, "measured: " + std::to_string(kLowInflightChecks) +
                                   " empty passes with inflight below inflight_low " + std::to_string(low_));
        return stop(q);
      }
    } else {
      low_checks_ = 0;
    }
    if (state_ == State::try_poll && (behind(q) || cannot_win(q))) return fail(q);
    return ThreadStep::sleep(interval_);
  }

  template <QueueEnv Q>
  TimerStep on_timer(Q&) { return TimerStep::stop(); }
  template <QueueEnv Q>
  uint32_t on_app_poll(Q&) { return 0; }
  std::string_view mode() const {
    switch (state_) {
      case State::try_poll: return kModeTry;
      case State::hold: return kModeHold;
      case State::backoff: return kModeBackoff;
      case State::measure: break;
    }
    return kModeMeasure;
  }
  bool polling() const { return state_ == State::try_poll || state_ == State::hold; }
  uint32_t failures() const { return failures_; }

 private:
  enum class State { measure, try_poll, hold, backoff };

  // Adds n completions to the window; true when that fills it (the overshoot is dropped).
  // Notes when the window passed its half, for halves_spread.
  template <QueueEnv Q>
  bool count(Q& q, uint32_t n) {
    open_at_first_drain(q, n);
    add_count(q, n);
    // Windows grow only with drive_pace, whose back-offs end on the drive's count before
    // counting here (on_interrupt): a back-off counts windows of `window`.
    const uint64_t size = window_;
    if (mid_count_ == 0 && 2 * window_count_ >= size) {
      mid_count_ = window_count_;
      mid_ = q.now();
    }
    // drive_pace: a hold window counts `window` of the queue's own completions (hold_faster).
    if ((drive_pace_ && state_ == State::hold ? own_count_ : window_count_) < size) return false;
    filled_count_ = window_count_;
    filled_own_ = own_count_;
    filled_wakeups_ = wakeups(q);
    window_count_ = own_count_ = 0;
    return true;
  }
  // Tie: the core's wake-ups for the queue since the window opened: useful interrupts in
  // interrupt mode, empty passes in polling mode (each ends in an fsleep whose timer wakes
  // the thread; a pass that found CQEs goes on after cond_resched).
  template <QueueEnv Q>
  uint64_t wakeups(Q& q) const {
    const auto& c = q.counters();
    return polling() ? c.poll_empty - empty_base_ : c.irq_useful - irq_base_;
  }
  template <QueueEnv Q>
  void mark_wakeups(Q& q) {
    irq_base_ = q.counters().irq_useful;
    empty_base_ = q.counters().poll_empty;
  }
  // 1: how far apart the window's two halves put a whole window (each half's pace times
  // `window`), times halves_1024 / 1024; 0 when a half has no completions of its own. The
  // opening drain's CQEs were there when the window opened, so neither half has them. A
  // pace that drifts over the window (a drive working off its state) or comes in bursts
  // (garbage collection) puts the halves far apart, and a try must then win by that much:
  // the interrupt window says less about the next window than the margin assumes.
  template <QueueEnv Q>
  int64_t halves_spread(Q& q) const {
    if (halves_ == 0 || mid_count_ <= first_n_ || filled_count_ <= mid_count_) return 0;
    const __int128 c1 = mid_count_ - first_n_, c2 = filled_count_ - mid_count_;
    const __int128 h1 = (mid_ - start_).count_ns(), h2 = (q.now() - mid_).count_ns();
    __int128 d = (h1 * c2 - h2 * c1) * static_cast<__int128>(window_);  // (e1 - e2) x c1 x c2
    if (d < 0) d = -d;
    return static_cast<int64_t>(d * halves_ / (1024 * c1 * c2));
  }
  template <QueueEnv Q>
  void start_try(Q& q, std::string reason) {  // 2
    await_turnover_ = false;
    settle_left_ = 0;
    set(q, State::try_poll, std::move(reason));
    restart(q);
    started_ = false;  // the try's window opens at its first drain
    try_start_ = q.now();
    low_checks_ = 0;
    q.mask_vector();
    q.wake_thread();
  }
  // A window opens at its first drain: those n CQEs are its first (first_n_).
  template <QueueEnv Q>
  void open_at_first_drain(Q& q, uint32_t n) {
    if (window_count_ != 0 || started_) return;
    started_ = true;
    start_ = q.now();
    first_n_ = n;
    own_count_ = 0;
    mark_wakeups(q);
    if (drive_pace_) drive_base_ = q.drive_completions() - n;  // the drain is counted already
    q.latencies().clear(q.now());  // the opening drain's CQEs were there before: not this window's
  }
  // The window's count after a drain of n: the queue's own, or with drive_pace every CQE
  // the drive's queues consumed since the window opened (a per-controller counter).
  template <QueueEnv Q>
  void add_count(Q& q, uint32_t n) {
    own_count_ += n;
    if (drive_pace_) {
      window_count_ = q.drive_completions() - drive_base_;
      return;
    }
    window_count_ += n;
  }
  template <QueueEnv Q>
  void restart(Q& q) {
    window_count_ = own_count_ = 0;
    first_n_ = mid_count_ = 0;
    started_ = true;
    start_ = q.now();
    mark_wakeups(q);
    if (drive_pace_) drive_base_ = q.drive_completions();
    q.latencies().clear(q.now());
  }
  // 2, 3: the bar a try's window and every hold window must pass (exact: t * 1024 against
  // D_irq * (1024 - margin)).
  bool faster_by_margin(int64_t t) const { return faster_than(t, d_irq_ns_); }
  // 3, 4, drive_pace: interrupts again after polling (a hold, a try lost on the halves) or
  // after a back-off while the drive's other queues may have held. The first window opens
  // at the turnover (a completion of a command submitted since); then, for up to
  // backoff_windows x window of the drive's completions, a window that the last polling
  // pace would not beat by a try's bar (the margin and the window's halves' spread) is
  // skipped. Right after polling the drive still holds the commands polling moved into
  // it, every interrupt finds a batch of CQEs, and interrupts keep polling's pace until
  // that backlog has gone (a PM9D3a with 4 jobs at QD1024: 508-538 us a window for 6 ms,
  // then 575-642 us; 512 us polled). A try against such a window cannot win, and its
  // back-off would keep the queue on the slower interrupts that follow.
  template <QueueEnv Q>
  void settle(Q& q) {
    await_turnover_ = true;
    // At most backoff_windows windows of `window` of the drive's, however the windows grew.
    const uint64_t windows = std::max<uint64_t>(backoff_windows_ * base_window_ / window_, 1);
    settle_left_ = hold_pace_ns_ > 0 ? static_cast<uint32_t>(std::min<uint64_t>(windows, 1u << 16)) : 0;
    q.latencies().clear(q.now());
  }
  // t is faster than d by the margin.
  bool faster_than(int64_t t, int64_t d) const { return t * 1024 < d * (1024 - margin_); }
  // drive_pace: t for n of the drive's completions as the time of a window (`window`).
  int64_t per_window(int64_t t, uint64_t n) const {
    return static_cast<int64_t>(static_cast<__int128>(t) * static_cast<__int128>(window_) /
                                static_cast<__int128>(std::max<uint64_t>(n, 1)));
  }
  // 3: a hold window of `t` passes the try's bar. With drive_pace it holds `window` of the
  // queue's own completions, several times the drive's `window` (four queues a drive: four
  // times), and is judged on the drive's pace in it: drive windows of `window` are short
  // enough that one in a few dozen misses the margin by chance (a PM9D3a polled at 512 us
  // a window against 579 us by interrupts had one of 567 us), and a hold that ends on one
  // leaves its queue measuring interrupts alone.
  bool hold_faster(int64_t t) const {
    if (!drive_pace_) return faster_by_margin(t);
    return static_cast<__int128>(t) * static_cast<__int128>(window_) * 1024 <
           static_cast<__int128>(d_irq_ns_) * static_cast<__int128>(filled_count_) * (1024 - margin_);
  }
  // 3: is a try window of `t` faster than the interrupts' by at least what the tail may
  // grow (tail_quarter_octaves, on the latencies' quarter-octave scale)? Only a hold whose
  // try was gets the grace of tail_windows: where polling wins big (deep reads: 1.5
  // against 2.4 ms a window), a window with a stretched tail is more likely the drive's
  // transient than polling's doing, and costs more to give up; where it wins by little (a
  // write-bound drive: 2.55 against 2.63 ms), a stretched tail is a bad trade at once.
  bool wins_by_the_tail(int64_t t) const {
    return LatencyBuckets::bucket(d_irq_ns_) >= LatencyBuckets::bucket(t) + tail_;
  }
  // 2: the bar a try that has taken `t` since it began can no longer pass: the margin's,
  // or t against D_irq less the halves' spread (none: it can still win).
  enum class Bar { none, margin, halves };
  Bar missed_bar(int64_t t) const {
    if (!faster_by_margin(t)) return Bar::margin;
    if (t + spread_ns_ >= d_irq_ns_) return Bar::halves;
    return Bar::none;
  }
  template <QueueEnv Q>
  bool cannot_win(Q& q) const {
    if (awaiting_turnover()) return try_elapsed(q) > kTurnoverWindows * d_irq_ns_;
    const int64_t t = try_elapsed(q);
    return missed_bar(t) != Bar::none && !(tie_wakeups_ > 0 && pace_time(q) <= d_irq_ns_);
  }
  // 2: how long the try has measured: since it began, or with try_after_turnover since its
  // window opened at the first completion of a command submitted in it (until then, since
  // it began).
  template <QueueEnv Q>
  int64_t try_elapsed(Q& q) const {
    return (q.now() - (after_turnover_ && started_ ? start_ : try_start_)).count_ns();
  }
  // 2, tie: the time the try's window has measured its pace over: since it opened at its
  // first drain (before that, since the try began: no pace yet).
  template <QueueEnv Q>
  int64_t pace_time(Q& q) const {
    return (q.now() - (started_ ? start_ : try_start_)).count_ns();
  }
  // 2: a try with try_after_turnover whose window has not opened yet: the CQEs it finds are
  // of commands submitted before it, under interrupts.
  bool awaiting_turnover() const { return after_turnover_ && state_ == State::try_poll && !started_; }
  // 2: has the try, once it found CQEs, fallen behind the interrupt pace by the slack?
  template <QueueEnv Q>
  bool behind(Q& q) const {
    const int64_t t = (q.now() - start_).count_ns();
    return window_count_ > 0 &&
           (t - slack_ns_) * static_cast<int64_t>(window_) > static_cast<int64_t>(window_count_) * d_irq_ns_;
  }
  template <QueueEnv Q>
  ThreadStep judge_try(Q& q, uint32_t n) {
    if (awaiting_turnover() && q.latencies().total == 0)  // only commands of before the try so far
      return cannot_win(q) ? fail(q) : ThreadStep::resched();
    if (n > 0) open_at_first_drain(q, n);
    add_count(q, n);
    if (cannot_win(q)) return fail(q);
    if (window_count_ < window_) return behind(q) ? fail(q) : ThreadStep::resched();
    const int64_t t = (q.now() - start_).count_ns();
    if (const Tail tail = tail_of(q); tail_lost(tail))
      return fail(q, "poll window in " + std::to_string(t / 1000) + " us against interrupts' " +
                         std::to_string(d_irq_ns_ / 1000) + " us, but its " + describe(tail) + " against " +
                         describe(tail_irq_));
    filled_count_ = window_count_;
    filled_wakeups_ = wakeups(q);
    // A win is judged on the time cannot_win judges (since the try began, or with
    // try_after_turnover since its window opened), as without ties; a tie on the window's
    // pace, t since it opened at its first drain (cannot_win lets such a try go on).
    bool tie = false;
    if (missed_bar(try_elapsed(q)) != Bar::none) {  // not faster by the bar: a tie wins on fewer wake-ups
      const Tail tail = tail_of(q);
      if (!ties(t, tail, 0))  // as a try that missed its bar (with drive_pace, the halves' may grow the window)
        return fail_try(q, ", nor tied (" + std::to_string(filled_wakeups_) + " sleeps, " + describe(tail) +
                               ", against " + std::to_string(irq_wakeups_) + " interrupts, " +
                               describe(tail_irq_) + ")");
      tie = true;
    }
    post(q, Verdict::won);
    return hold(q, t, q.drive_completions(),
                "measured: poll window in " + std::to_string(t / 1000) + " us, interrupts " +
                    std::to_string(d_irq_ns_ / 1000) + " us" +
                    (tie ? ", a tie: " + std::to_string(filled_wakeups_) + " sleeps against " +
                               std::to_string(irq_wakeups_) + " interrupts"
                         : std::string()));
  }
  // 3: a try won (its window took t), at the drive's count `at`: hold.
  template <QueueEnv Q>
  ThreadStep hold(Q& q, int64_t t, uint64_t at, std::string reason) {
    resumed_ = false;
    try_ns_ = hold_pace_ns_ = t;
    hold_left_ = hold_windows_;
    hold_end_ = (at / hold_grid() + (uint64_t{2} << held_)) * hold_grid();
    tail_lost_ = 0;
    set(q, State::hold, std::move(reason));
    phase_from_ = at;
    restart(q);
    return ThreadStep::resched();
  }
  // drive_pace: the verdict the drive's word holds (QueueEnv::drive_word): what the first
  // of its queues to decide a try decided, and the drive's count then.
  enum class Verdict : uint64_t { none = 0, won = 1, halves = 2, failed = 3 };
  static uint64_t verdict_at(uint64_t word) { return word >> 2; }
  static Verdict verdict_of(uint64_t word) { return static_cast<Verdict>(word & 3); }
  template <QueueEnv Q>
  void post(Q& q, Verdict v) {
    if (drive_pace_) q.set_drive_word(q.drive_completions() << 2 | static_cast<uint64_t>(v));
  }
  // drive_pace: another queue of the drive decided a try since this one's try began; this
  // one does as it decided, and a hold goes on (why: the header's "On the drive").
  template <QueueEnv Q>
  ThreadStep adopt(Q& q, uint64_t word) {
    const uint64_t at = verdict_at(word);
    if (state_ == State::hold) {  // a try of the drive's decided while this queue held: hold on
      phase_from_ = at;
      return ThreadStep::resched();
    }
    const std::string by = "the drive's queue that decided first, at its " + std::to_string(at) + "th completion";
    const Verdict v = verdict_of(word);
    if (v == Verdict::failed) return fail(q, "its try failed with " + by, at, false);
    const int64_t t = pace_time(q);
    if (v == Verdict::won)
      return hold(q, window_count_ > 0 ? per_window(t, window_count_) : d_irq_ns_, at,
                  "measured: polls with " + by + ", whose try won");
    if (!grow_window()) return fail(q, "its try lost on the halves' spread with " + by, at, false);
    if (window_count_ > 0) hold_pace_ns_ = per_window(t, window_count_);
    return measure_longer(q, "its try lost on the halves' spread with " + by);
  }
  // 3: a hold that ran its course (hold_windows, or with drive_pace to the drive's grid).
  template <QueueEnv Q>
  ThreadStep end_hold(Q& q) {
    failures_ = 0;
    if (drive_pace_) settle(q);
    if (drive_pace_ && held_ < kMaxHoldShift) ++held_;
    set(q, State::measure,
        drive_pace_ ? "measured: held to the drive's " + std::to_string(hold_end_) + "th completion (every " +
                          std::to_string(hold_grid()) + ", its queues measure again together)"
                    : "measured: held " + std::to_string(hold_windows_) + " windows");
    return stop(q);
  }
  // drive_pace: every holding queue of a drive ends its hold when the drive's completion
  // count crosses a multiple of this (hold_windows x window), so that the drive's queues
  // measure interrupts again together. Holds that end at each queue's own moment leave the
  // first to end measuring interrupts while its siblings still poll: its D_irq is then
  // their polling pace, its try cannot beat that, and the back-offs cascade through the
  // drive (8 D7-PS1010 with 8 queues each: 17.3M against 24.1M per queue over 100 ms).
  uint64_t hold_grid() const { return hold_windows_ * base_window_; }
  // 4: the try can no longer win (cannot_win) or fell behind (behind); the reason names
  // the bar it missed.
  template <QueueEnv Q>
  ThreadStep fail(Q& q) { return fail_try(q, std::string()); }
  // The same, with `no_tie` (why the try did not tie either) after the bar it missed.
  template <QueueEnv Q>
  ThreadStep fail_try(Q& q, const std::string& no_tie) {
    const int64_t t = try_elapsed(q);
    if (awaiting_turnover())
      return fail(q, "poll try: no command submitted since it began completed within " +
                         std::to_string(kTurnoverWindows) + " interrupt windows (" + std::to_string(t / 1000) + " us)");
    std::string why = "poll try: " + std::to_string(window_count_) + " in " + std::to_string(t / 1000) +
                      " us against " + std::to_string(window_) + " in " + std::to_string(d_irq_ns_ / 1000) +
                      " us by interrupts, ";
    const Bar bar = missed_bar(t);
    switch (bar) {
      case Bar::margin: why += "not faster by the margin"; break;
      case Bar::halves:
        why += "not faster by the interrupt window's halves' spread (" + std::to_string(spread_ns_ / 1000) + " us)";
        break;
      case Bar::none:
        why += "behind their pace since its first drain by more than " + std::to_string(slack_ns_ / 1000) + " us";
        break;
    }
    why += no_tie;
    if (bar == Bar::halves && grow_window()) {  // drive_pace: more evidence at once, no back-off
      post(q, Verdict::halves);
      hold_pace_ns_ = per_window(t, window_count_);
      return measure_longer(q, why);
    }
    return fail(q, why);
  }
  // drive_pace, 2: a try lost on the halves' spread alone, its windows grown (grow_window):
  // interrupts again and a new D_irq at once, no back-off, no failure counted.
  template <QueueEnv Q>
  ThreadStep measure_longer(Q& q, const std::string& why) {
    resume_ = resumed_ = false;
    settle(q);
    set(q, State::measure, "measured: " + why + ", windows of " + std::to_string(window_) + " from now on");
    return stop(q);
  }
  // drive_pace: a try lost on the halves' spread alone doubles the measuring windows, up to
  // 8 x `window` (more evidence next time); true when they grew.
  bool grow_window() {
    if (!drive_pace_ || window_ >= base_window_ << kMaxWindowShift) return false;
    window_ *= 2;
    return true;
  }
  // 4: at the drive's count `at`; `own`: this queue decided it (with drive_pace, for the drive).
  template <QueueEnv Q>
  ThreadStep fail(Q& q, const std::string& why) { return fail(q, why, q.drive_completions(), true); }
  template <QueueEnv Q>
  ThreadStep fail(Q& q, const std::string& why, uint64_t at, bool own) {
    if (own && state_ == State::try_poll) post(q, Verdict::failed);
    resume_ = resumed_ = false;
    ++q.counters().backoffs;
    held_ = 0;
    failures_ = std::min(failures_ + 1, kMaxBackoffShift + 1);
    backoff_total_ = backoff_windows_ << (failures_ - 1);
    backoff_left_ = backoff_total_;
    const uint64_t grid = std::max<uint64_t>(backoff_windows_, 1) * base_window_;
    const uint64_t until = at + backoff_total_ * base_window_;
    backoff_end_ = (until + grid - 1) / grid * grid;
    set(q, backoff_left_ > 0 ? State::backoff : State::measure,
        "measured: " + why + ", back-off " + std::to_string(backoff_total_) + " windows");
    return stop(q);
  }
  // The window's p50 and p99 buckets. Their distance (the p99 over the p50, in
  // quarter-octaves) is the window's tail; unlike either bucket alone, it does not move
  // when every latency scales together (a drive working off its drawn state, a faster
  // mode at the same depth: Little's law), only when the shape changes. `at`: the tail's
  // quantile (tail_quantile), p99 but for drive_pace windows of few own latencies.
  struct Tail {
    uint32_t p50 = 0, p99 = 0;
    uint32_t at = kP99;
    uint32_t spread() const { return p99 - p50; }
  };
  template <QueueEnv Q>
  Tail tail_of(Q& q) const {
    const LatencyBuckets& l = q.latencies();
    // drive_pace: a try or hold window's tail at T_irq's quantile (a hold window holds
    // several times the latencies of a drive window: its p99 is another quantile).
    const uint32_t at = drive_pace_ && state_ != State::measure ? tail_irq_.at : tail_quantile(l.total);
    return {l.quantile_bucket(kP50), l.quantile_bucket(at), at};
  }
  // The tail's quantile for a window of n latencies: the 99th percentile, about the 10th
  // largest at 1024. With drive_pace a queue's own share of a window is smaller (a quarter
  // with four queues a drive), its p99 the 3rd largest of 256 or the largest of 100, and
  // where that one falls moves the tail by buckets from window to window (a T_irq of 131
  // us over 81 us, then hold windows at 262 over 98 us: a hold ended on rank noise). The
  // tail is then kTailDepth latencies deep (p96 of 256), never below the p50.
  uint32_t tail_quantile(uint64_t n) const {
    if (!drive_pace_ || n * (1024 - kP99) >= kTailDepth * 1024) return kP99;
    const uint64_t off = (kTailDepth * 1024 + n - 1) / std::max<uint64_t>(n, 1);
    return off >= 1024 - kP50 ? kP50 : static_cast<uint32_t>(1024 - off);
  }
  // 2, 3: the window's tail is more than tail_quarter_octaves beyond the interrupts', and
  // its p99 above theirs. A tail stretched by a median that fell further than the p99
  // (a host that interrupts held back, freed: p50 1048 -> 114 us, p99 1310 -> 1048 us) is
  // the gain, not a cost.
  bool tail_lost(Tail t) const { return t.spread() > tail_irq_.spread() + tail_ && t.p99 > tail_irq_.p99; }
  // 2, 3, tie (tie_wakeups; why: the header's step 2): a window of `t` with filled_count_
  // completions and filled_wakeups_ wake-ups, its tail `tail`, against D_irq's window: a
  // pace within `slower_1024` of D_irq's (0 for a try: no slower; the margin for a hold
  // window: not slower by it), its p50 and p99 no higher, and its wake-ups per completion
  // at most 1 / tie_wakeups of the interrupts'.
  bool ties(int64_t t, Tail tail, int64_t slower_1024) const {
    if (tie_wakeups_ == 0 || irq_wakeups_ == 0 || tail.p50 > tail_irq_.p50 || tail.p99 > tail_irq_.p99) return false;
    const __int128 n = static_cast<__int128>(std::max<uint64_t>(filled_count_, 1));
    const __int128 n_irq = static_cast<__int128>(std::max<uint64_t>(irq_count_, 1));
    if (static_cast<__int128>(t) * n_irq * 1024 > static_cast<__int128>(d_irq_ns_) * n * (1024 + slower_1024))
      return false;
    return static_cast<__int128>(filled_wakeups_) * tie_wakeups_ * n_irq <= static_cast<__int128>(irq_wakeups_) * n;
  }
  // 3: a hold window not faster by the margin goes on while it ties (not slower by the margin).
  bool still_ties(int64_t t, Tail tail) const { return ties(t, tail, margin_); }
  static std::string describe(Tail t) {  // bucket lower bounds, for the timeline
    std::string s = "p";
    if (t.at == kP99) {
      s += "99";
    } else {  // in tenths of a percent
      const uint32_t tenths = (t.at * 1000 + 512) / 1024;
      s += std::to_string(tenths / 10);
      s += '.';
      s += std::to_string(tenths % 10);
    }
    s += ' ';
    s += std::to_string(LatencyBuckets::lower(t.p99) / 1000);
    s += " us over p50 ";
    s += std::to_string(LatencyBuckets::lower(t.p50) / 1000);
    s += " us";
    return s;
  }
  template <QueueEnv Q>
  ThreadStep stop(Q& q) {
    restart(q);
    started_ = false;  // the next window opens at the next drain
    low_checks_ = 0;
    q.unmask_vector();
    return ThreadStep::park();
  }
  template <QueueEnv Q>
  void set(Q& q, State to, std::string reason) {
    const std::string_view from = mode();
    state_ = to;
    phase_from_ = q.drive_completions();
    q.mode_change(from, mode(), std::move(reason));
  }

  uint64_t base_window_;
  uint64_t window_;  // the window's count: `window`, doubled with drive_pace per try lost on the halves' spread
  int64_t enter_gap_ns_;
  uint32_t low_;
  Duration interval_;
  int64_t margin_;
  int64_t slack_ns_;
  uint64_t hold_windows_, backoff_windows_;
  int64_t halves_;
  uint32_t tail_, tail_max_, tail_windows_;
  bool drive_pace_;
  bool after_turnover_;
  uint64_t tie_wakeups_;
  uint64_t drive_base_ = 0;  // drive_pace: the drive's count when the window opened

  State state_ = State::measure;
  bool started_ = false;  // the current window has opened
  Time start_;
  Time try_start_;  // the current try began then
  uint64_t window_count_ = 0;
  int64_t d_irq_ns_ = 1;
  int64_t spread_ns_ = 0;  // the try must also win by this (halves_spread of D_irq's window)
  Tail tail_irq_;          // T_irq: the p50 and p99 buckets of D_irq's window
  uint64_t first_n_ = 0;   // the CQEs of the drain that opened the window
  uint64_t mid_count_ = 0, filled_count_ = 0;  // the count when the window passed its half; when it filled
  uint64_t own_count_ = 0, filled_own_ = 0;     // the queue's own CQEs in the window; when it filled
  Time mid_;
  uint64_t hold_left_ = 0;
  uint64_t hold_end_ = 0;  // drive_pace: the hold ends when the drive's count reaches this
  uint64_t phase_from_ = 0;  // the drive's count when the current mode began (drive_pace: a verdict since)
  bool measured_ = false;    // D_irq has been measured
  uint64_t backoff_end_ = 0;  // drive_pace: the back-off ends when the drive's count reaches this
  bool await_turnover_ = false;  // drive_pace: interrupts again; no window until a command of since completes
  uint32_t settle_left_ = 0;     // drive_pace: interrupt windows left that polling must beat to count
  int64_t hold_pace_ns_ = 0;     // drive_pace: the last polling pace, per `window` of the drive's
  uint64_t irq_base_ = 0, empty_base_ = 0;  // the queue's counters when the window opened (wakeups)
  uint64_t filled_wakeups_ = 0;  // the last full window's wake-ups
  uint64_t irq_wakeups_ = 0, irq_count_ = 0;  // D_irq's window: its interrupts and its count
  int64_t try_ns_ = 0;  // the winning try's window: how far polling won (wins_by_the_tail)
  uint32_t tail_lost_ = 0;  // hold windows in a row whose tail grew
  uint64_t backoff_left_ = 0, backoff_total_ = 0;
  uint32_t failures_ = 0;
  uint32_t held_ = 0;  // drive_pace: holds in a row that ran their course (each doubles the next)
  uint32_t low_checks_ = 0;
  bool resume_ = false;   // polling paused for light load: the next useful interrupt tries at once
  bool resumed_ = false;  // the current try is such a resumption
};

}  // namespace nvmesim::policy
