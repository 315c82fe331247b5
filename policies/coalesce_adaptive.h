// Policy C `coalesce_adaptive`: per-drive adaptive NVMe interrupt coalescing.
//
// One decision per drive (controller): a periodic monitor (on_monitor, every cycle_us)
// reads three signals of the drive over the cycle that just ended,
//   io_delta  = completions during the cycle (all I/O queues),
//   avg_qd    = time-average of the drive's total inflight over the cycle
//               (avg_qd_scope = 1: divided by the number of I/O queues),
//   inflight  = total inflight I/O at the end of the cycle,
// and compares each with its threshold (a signal passes when it is AT OR ABOVE it).
// Heavy = the combine rule over the three passes. Off and heavy -> Set Features 08h with
// (thr, time_100us) for all I/O vectors, mode coalesce_off -> coalesce_on. On and not
// heavy -> Set Features 08h with (0, 0) (coalescing off), mode coalesce_on ->
// coalesce_off. Hysteresis: while on, each threshold is lowered by hysteresis_pct
// percent (compared exactly: value * 100 >= threshold * (100 - pct)).
// The state starts off (the controller's reset value of Feature 08h is 0: no
// coalescing); the first on_monitor call only takes the baseline of the first cycle.
//
// Open in the spec, our assumptions (documented defaults):
//   cycle_us = 50000 (50 ms): io_delta >= 45000 then means >= 900K completions/s, a heavy
//     4 KiB load on one drive, while 128 KiB streaming at ~14 GB/s (~110K/s) stays below.
//   combine = 0: all three signals must pass (1: any two, 2: any one, 3: io_delta and at
//     least one of avg_qd / inflight).
//   avg_qd_scope = 0: per drive (1: per I/O queue, i.e. divided by io_queue_count; with
//     one queue per core that average depends on how many cores are idle, hence not the
//     default).
//   hysteresis_pct = 10.
//   thr = 7, time_100us = 1 (8 CQEs or 100 us) written when enabling.
//
// Runner: construct one CoalesceAdaptiveDrive per drive from the same parameters and
// call on_monitor(drive_env) at the start of the run and then again after each duration
// it returns, in a periodic-monitor context (a kworker: its CPU cost is the monitor's
// plus the Set Features admin command). set_coalescing takes effect at the controller
// when its admin command completes. Every I/O queue of the drive runs
// CoalesceAdaptiveQueue, whose IRQ handling is B0. The mechanism is per controller and
// "on by default"; disabling it at run time is not modelled (select another policy).
// Drive counters (cycles, coalescing on/off switches) are read from counters().
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <cstdio>
#include <string>
#include <string_view>

#include "policies/api/policy.h"
#include "policies/irq.h"
#include "policies/coalesce.h"

namespace nvmesim::policy {

// Parameters shared by the drive monitor and the per-queue side.
struct CoalesceAdaptiveParams {
  int64_t high_io_delta = 45000;
  int64_t avg_qd_threshold = 32;
  int64_t total_inflight_io_threshold = 256;
  int64_t cycle_us = 50000;
  int64_t combine = 0;
  int64_t avg_qd_scope = 0;
  int64_t hysteresis_pct = 10;
  int64_t thr = 7;
  int64_t time_100us = 1;
  using P = CoalesceAdaptiveParams;
  static constexpr std::array<ParamField<P>, 9> kFields{{
      {"high_io_delta", &P::high_io_delta, 1, 1000000000, "completions",
       "completions per cycle at or above which the drive counts as heavy"},
      {"avg_qd_threshold", &P::avg_qd_threshold, 1, 1 << 24, "commands",
       "average inflight over the cycle at or above which the drive counts as heavy"},
      {"total_inflight_io_threshold", &P::total_inflight_io_threshold, 1, 1 << 24, "commands",
       "total inflight I/O at the end of the cycle at or above which the drive counts as "
       "heavy"},
      {"cycle_us", &P::cycle_us, 100, 10000000, "us",
       "monitoring cycle (assumption: the proposal leaves it open)"},
      {"combine", &P::combine, 0, 3, "rule",
       "heavy when 0: all three signals pass, 1: any two, 2: any one, 3: io_delta and one of "
       "avg_qd/inflight (assumption)"},
      {"avg_qd_scope", &P::avg_qd_scope, 0, 1, "enum",
       "average queue depth 0: per drive, 1: per I/O queue (assumption)"},
      {"hysteresis_pct", &P::hysteresis_pct, 0, 99, "%",
       "while on, thresholds are lowered by this percentage (assumption)"},
      {"thr", &P::thr, 1, 255, "entries-1",
       "Feature 08h THR written when enabling, 0's based (assumption)"},
      {"time_100us", &P::time_100us, 1, 255, "100us",
       "Feature 08h TIME written when enabling (assumption)"},
  }};

  static std::optional<ParamError> check(const CoalesceAdaptiveParams&, uint32_t) { return std::nullopt; }
};

// Per drive: the monitor.
class CoalesceAdaptiveDrive {
 public:
  static constexpr std::string_view kName = "coalesce_adaptive";
  using Params = CoalesceAdaptiveParams;
  static constexpr std::string_view kModeOn = "coalesce_on";
  static constexpr std::string_view kModeOff = "coalesce_off";

  struct Counters {
    uint64_t cycles = 0;         // evaluated monitoring cycles
    uint64_t coalesce_on = 0;    // switches to on (Set Features written)
    uint64_t coalesce_off = 0;   // switches to off (Set Features written)
  };

  explicit CoalesceAdaptiveDrive(const Params& p = {})
      : high_io_delta_(static_cast<uint64_t>(p.high_io_delta)),
        avg_qd_threshold_(static_cast<uint64_t>(p.avg_qd_threshold)),
        inflight_threshold_(static_cast<uint64_t>(p.total_inflight_io_threshold)),
        cycle_(Duration::us(p.cycle_us)),
        combine_(static_cast<uint32_t>(p.combine)),
        per_queue_(p.avg_qd_scope == 1),
        hysteresis_pct_(static_cast<uint32_t>(p.hysteresis_pct)),
        on_value_{static_cast<uint32_t>(p.thr), static_cast<uint32_t>(p.time_100us)} {}

  static std::optional<ParamError> check(const Params& p, uint32_t qd) { return Params::check(p, qd); }

  // One monitoring cycle; returns the time until the next call.
  template <DriveEnv D>
  Duration on_monitor(D& d) {
    const Time now = d.now();
    const uint64_t completions = d.completions_total();
    const double integral = d.inflight_integral();
    if (!started_) {
      started_ = true;
      remember(now, completions, integral);
      return cycle_;
    }
    ++counters_.cycles;
    const uint64_t io_delta = completions - prev_completions_;
    const int64_t span = (now - prev_time_).count_ns();
    double avg_qd = span > 0 ? (integral - prev_integral_) / static_cast<double>(span) : 0.0;
    if (per_queue_) {
      const uint32_t queues = d.io_queue_count();
      avg_qd = queues > 0 ? avg_qd / queues : 0.0;
    }
    const uint64_t inflight = d.inflight_total();
    remember(now, completions, integral);

    const uint32_t keep = on_ ? 100 - hysteresis_pct_ : 100;  // percent of each threshold
    const bool io_pass = io_delta * 100 >= high_io_delta_ * keep;
    const bool qd_pass = avg_qd * 100.0 >= static_cast<double>(avg_qd_threshold_ * keep);
    const bool inflight_pass = inflight * 100 >= inflight_threshold_ * keep;
    const int passes = int{io_pass} + int{qd_pass} + int{inflight_pass};
    bool heavy = false;
    switch (combine_) {
      case 0: heavy = passes == 3; break;
      case 1: heavy = passes >= 2; break;
      case 2: heavy = passes >= 1; break;
      default: heavy = io_pass && (qd_pass || inflight_pass); break;
    }
    if (heavy == on_) return cycle_;

    on_ = heavy;
    char sig[160];
    std::snprintf(sig, sizeof sig, "io_delta %llu%s, avg_qd %.1f%s, inflight %llu%s",
                  static_cast<unsigned long long>(io_delta), io_pass ? "+" : "-", avg_qd,
                  qd_pass ? "+" : "-", static_cast<unsigned long long>(inflight),
                  inflight_pass ? "+" : "-");
    if (on_) {
      ++counters_.coalesce_on;
      d.set_coalescing(on_value_.thr, on_value_.time_100us);
      d.mode_change(kModeOff, kModeOn,
                    std::string("coalesce_adaptive: heavy (") + sig + "), THR=" +
                        std::to_string(on_value_.thr) + " TIME=" +
                        std::to_string(on_value_.time_100us));
    } else {
      ++counters_.coalesce_off;
      d.set_coalescing(0, 0);
      d.mode_change(kModeOn, kModeOff, std::string("coalesce_adaptive: not heavy (") + sig + ")");
    }
    return cycle_;
  }

  std::string_view mode() const { return on_ ? kModeOn : kModeOff; }
  bool coalescing_on() const { return on_; }
  // The Feature 08h value written when enabling (off writes {0, 0}).
  Coalescing on_value() const { return on_value_; }
  const Counters& counters() const { return counters_; }

 private:
  void remember(Time now, uint64_t completions, double integral) {
    prev_time_ = now;
    prev_completions_ = completions;
    prev_integral_ = integral;
  }

  uint64_t high_io_delta_;
  uint64_t avg_qd_threshold_;
  uint64_t inflight_threshold_;
  Duration cycle_;
  uint32_t combine_;
  bool per_queue_;
  uint32_t hysteresis_pct_;
  Coalescing on_value_;

  bool started_ = false;
  bool on_ = false;
  Time prev_time_;
  uint64_t prev_completions_ = 0;
  double prev_integral_ = 0.0;
  Counters counters_;
};

// Per queue: B0 interrupt handling under whatever coalescing the drive monitor set.
class CoalesceAdaptiveQueue : public B0Hooks {
 public:
  static constexpr std::string_view kName = "coalesce_adaptive";
  using Params = CoalesceAdaptiveParams;
  static constexpr bool kUsesVector = true;
  static constexpr bool kAppPolls = false;

  explicit CoalesceAdaptiveQueue(const Params& = {}) {}
  static std::optional<ParamError> check(const Params& p, uint32_t qd) { return Params::check(p, qd); }

  std::string_view mode() const { return "irq"; }
};

}  // namespace nvmesim::policy
