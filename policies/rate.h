// Policy B `rate`: per-queue switching between interrupt mode and timer-driven polling,
// decided by the completion rate.
//
// States (mode names in brackets):
//   IRQ-measure [irq_measure] Interrupts as B0. A window is `window` completions counted
//       from a reference instant: the first interrupt ever (its own CQEs, posted before
//       the window began, are not counted) or the instant the previous window or state
//       ended. It closes at the drain that brings its count to `window` or more (the
//       overshoot is dropped), D_irq = now - start. If D_irq <= window * enter_gap_ns
//       (average gap <= enter_gap_ns, compared exactly, no rounding) -> Poll-try with
//       pace P = D_irq / window; else a new window starts now.
//   Poll-try [poll_try] Mask the vector and arm the hrtimer (poll_period_ns). Each expiry
//       runs on_timer in softirq: drain up to `budget` CQEs (irq_poll), n += drained,
//       t = now - start. Before the window is full: t > n * P + behind_slack_ns (exact:
//       (t - slack) * window > n * D_irq) -> failure. At n >= window: t < D_irq
//       (strictly) -> success, else failure.
//   Failure: unmask, stop the timer, consecutive failures += 1. Below max_failures ->
//       IRQ-measure (new window from now). At max_failures -> Backoff, and the
//       consecutive-failure count restarts from 0 (max_failures more are needed for the
//       next back-off; an assumption, the spec does not say).
//   Backoff [backoff] Interrupts as B0, no measuring, for backoff_windows windows of
//       completions (window = `window` completions, counted as above); then IRQ-measure.
//   Success: failures = 0 -> Poll-hold.
//   Poll-hold [poll_hold] Keep polling as in Poll-try for hold_windows windows of
//       completions, then unmask, stop the timer -> IRQ-measure.
// While polling (try/hold), a hard IRQ that still reaches the handler (the lazy
// disable_irq_nosync lets the first one in, the runner decides) only counts
// irq_while_polling; the timer drains.
//
// on_timer returns TimerStep::again(poll_period_ns) to re-arm, TimerStep::again(zero)
// when it used its whole budget (irq_poll keeps the queue on its list and runs it again
// at once), TimerStep::stop() when polling ends.
//
// Open parameters, our assumptions: poll_period_ns = 5000 (half the default
// enter_gap_ns: a queue at the slowest entry pace still finds a CQE about every other
// expiry, at a 1 us pace about 5 per expiry); budget = 256 (the kernel's irq_poll
// default weight).
//
// Runner: eligible queues are I/O queues with a dedicated MSI-X vector and no threaded
// interrupts; others run IrqPolicy (B0). on_interrupt in hard IRQ; on_timer in softirq
// (hrtimer expiry -> irq_poll), started by arm_timer. A run-time change of the mode
// quiesces the queue first (runner's job).
//
// Counters: the policy counts irq_useful, irq_spurious, irq_while_polling, poll_useful,
// poll_empty (one per on_timer run) and backoffs; the env ops and the runner count the
// rest (policies/api/policy.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <cstdio>
#include <string>
#include <string_view>

#include "policies/api/policy.h"

namespace nvmesim::policy {

// RatePolicy's parameters (defaults are the initialisers).
struct RateParams {
  int64_t window = 8192;
  int64_t enter_gap_ns = 10000;
  int64_t behind_slack_ns = 20000;
  int64_t max_failures = 3;
  int64_t backoff_windows = 64;
  int64_t hold_windows = 64;
  int64_t poll_period_ns = 5000;
  int64_t budget = 256;
  static constexpr std::array<ParamField<RateParams>, 8> kFields{{
      {"window", &RateParams::window, 1, 1 << 20, "completions",
       "completions per measuring/polling window"},
      {"enter_gap_ns", &RateParams::enter_gap_ns, 1, 1000000, "ns",
       "try polling when an IRQ window's average completion gap is <= this"},
      {"behind_slack_ns", &RateParams::behind_slack_ns, 0, 1000000000, "ns",
       "a poll try fails early once it is more than this behind the IRQ pace"},
      {"max_failures", &RateParams::max_failures, 1, 1000000, "tries",
       "consecutive failed tries before backing off"},
      {"backoff_windows", &RateParams::backoff_windows, 1, 1000000, "windows",
       "windows of completions in plain IRQ mode, without measuring, after a back-off"},
      {"hold_windows", &RateParams::hold_windows, 1, 1000000, "windows",
       "windows of completions polled after a successful try"},
      {"poll_period_ns", &RateParams::poll_period_ns, 500, 1000000, "ns",
       "hrtimer period while polling (assumption: the proposal leaves it open)"},
      {"budget", &RateParams::budget, 1, 65536, "CQEs", "irq_poll budget per run (kernel default 256)"},
  }};
};

class RatePolicy {
 public:
  static constexpr std::string_view kName = "rate";
  using Params = RateParams;
  static constexpr bool kUsesVector = true;
  static constexpr bool kAppPolls = false;

  enum class State { irq_measure, poll_try, poll_hold, backoff };

  explicit RatePolicy(const Params& p = {})
      : window_(static_cast<uint64_t>(p.window)),
        enter_gap_(Duration::ns(p.enter_gap_ns)),
        slack_(Duration::ns(p.behind_slack_ns)),
        max_failures_(static_cast<uint32_t>(p.max_failures)),
        backoff_windows_(static_cast<uint32_t>(p.backoff_windows)),
        hold_windows_(static_cast<uint32_t>(p.hold_windows)),
        period_(Duration::ns(p.poll_period_ns)),
        budget_(static_cast<uint32_t>(p.budget)) {}

  static std::optional<ParamError> check(const Params&, uint32_t) { return std::nullopt; }

  static constexpr std::string_view mode_name(State s) {
    switch (s) {
      case State::irq_measure: return "irq_measure";
      case State::poll_try: return "poll_try";
      case State::poll_hold: return "poll_hold";
      case State::backoff: return "backoff";
    }
    return "?";
  }

  template <QueueEnv Q>
  void on_interrupt(Q& q) {
    auto& c = q.counters();
    if (state_ == State::poll_try || state_ == State::poll_hold) {
      ++c.irq_while_polling;
      return;
    }
    const uint32_t n = q.drain();
    if (n == 0) {
      ++c.irq_spurious;
      return;
    }
    ++c.irq_useful;
    const Time now = q.now();
    if (!started_) {  // the first window begins here; these CQEs predate it
      started_ = true;
      begin_window(now);
      return;
    }
    count_ += n;
    if (count_ < window_) return;
    const Duration d = now - start_;
    begin_window(now);
    if (state_ == State::backoff) {
      if (++windows_done_ < backoff_windows_) return;
      change(q, State::irq_measure,
             "rate: back-off over after " + std::to_string(backoff_windows_) + " windows");
      return;
    }
    // IRQ-measure: a window is complete.
    if (d > enter_gap_ * static_cast<int64_t>(window_)) return;  // too slow: measure again
    d_irq_ = d;
    change(q, State::poll_try,
           "rate: irq pace " + us(d / static_cast<int64_t>(window_)) + " <= enter_gap " +
               us(enter_gap_) + ", trying poll");
    q.mask_vector();
    q.arm_timer(period_);
  }

  template <QueueEnv Q>
  TimerStep on_timer(Q& q) {
    if (state_ != State::poll_try && state_ != State::poll_hold) return TimerStep::stop();
    auto& c = q.counters();
    const uint32_t n = q.drain_budget(budget_);
    if (n == 0)
      ++c.poll_empty;
    else
      ++c.poll_useful;
    count_ += n;
    const Time now = q.now();
    const Duration t = now - start_;

    if (state_ == State::poll_try) {
      if (count_ < window_) {
        // Early failure: t > n * P + slack, P = D_irq / window, without rounding P.
        const Duration over = t - slack_;
        if (over > d_irq_ || over.count_ns() * static_cast<int64_t>(window_) >
                                 static_cast<int64_t>(count_) * d_irq_.count_ns()) {
          const Duration behind =
              t - Duration::ns(static_cast<int64_t>(count_) * d_irq_.count_ns() /
                               static_cast<int64_t>(window_));
          return fail(q, now, "rate: poll try failed: " + us(behind) + " behind irq pace");
        }
        return again(n);
      }
      if (t < d_irq_) {
        failures_ = 0;
        begin_window(now);
        change(q, State::poll_hold,
               "rate: poll try succeeded: window " + us(t) + " < irq window " + us(d_irq_));
        return again(n);
      }
      return fail(q, now,
                  "rate: poll try failed: window " + us(t) + " not faster than irq window " +
                      us(d_irq_));
    }

    // Poll-hold.
    if (count_ < window_) return again(n);
    begin_window(now);
    if (++windows_done_ < hold_windows_) return again(n);
    change(q, State::irq_measure,
           "rate: held " + std::to_string(hold_windows_) + " windows, back to irq");
    q.unmask_vector();
    return TimerStep::stop();
  }

  template <QueueEnv Q>
  ThreadStep on_thread(Q&) { return ThreadStep::park(); }
  template <QueueEnv Q>
  uint32_t on_app_poll(Q&) { return 0; }
  std::string_view mode() const { return mode_name(state_); }

  // For tests and traces.
  State state() const { return state_; }
  uint32_t consecutive_failures() const { return failures_; }
  Duration irq_window() const { return d_irq_; }

 private:
  void begin_window(Time now) {
    start_ = now;
    count_ = 0;
  }

  template <QueueEnv Q>
  void change(Q& q, State to, std::string reason) {
    q.mode_change(mode_name(state_), mode_name(to), std::move(reason));
    state_ = to;
    windows_done_ = 0;
  }

  template <QueueEnv Q>
  TimerStep fail(Q& q, Time now, std::string reason) {
    begin_window(now);
    if (++failures_ >= max_failures_) {
      failures_ = 0;
      ++q.counters().backoffs;
      change(q, State::backoff,
             std::move(reason) + "; " + std::to_string(max_failures_) +
                 " failures in a row, backing off " + std::to_string(backoff_windows_) +
                 " windows");
    } else {
      change(q, State::irq_measure, std::move(reason));
    }
    q.unmask_vector();
    return TimerStep::stop();
  }

  // Re-arm: at once when the budget ran out (irq_poll re-run), else after the period.
  TimerStep again(uint32_t drained) const {
    return TimerStep::again(drained >= budget_ ? Duration::zero() : period_);
  }

  static std::string us(Duration d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f µs", static_cast<double>(d.count_ns()) / 1000.0);
    return buf;
  }

  uint64_t window_;
  Duration enter_gap_;
  Duration slack_;
  uint32_t max_failures_;
  uint32_t backoff_windows_;
  uint32_t hold_windows_;
  Duration period_;
  uint32_t budget_;

  State state_ = State::irq_measure;
  bool started_ = false;     // the first window has begun
  Time start_;               // current window's reference instant
  uint64_t count_ = 0;       // completions in the current window
  uint32_t windows_done_ = 0;  // windows completed in Backoff / Poll-hold
  uint32_t failures_ = 0;    // consecutive failed tries
  Duration d_irq_;           // the IRQ window that started the current try
};

}  // namespace nvmesim::policy
