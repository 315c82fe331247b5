// Picosecond arithmetic for the device's reservations (front end, link): a ceiling of
// 3.2M IOPS is 312.5 ns a command, so reservations are kept in picoseconds to stay exact,
// and an event's time is the reservation's end rounded up to the nanosecond.
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/round_nonneg.h"
#include "vocab/time.h"

namespace nvmesim::ps {

inline constexpr int64_t kPerNs = 1000;
// Reservations saturate here: 2.3e6 s, far past the end of any run (at most 2 h), so a
// command reserved past it never completes within the run and picosecond sums never
// overflow, however slow the profile or long the backlog.
inline constexpr int64_t kHorizon = INT64_MAX / 4;

inline Time to_time_ceil(int64_t p) { return Time::from_ns((p + kPerNs - 1) / kPerNs); }
// A picosecond span from a double, clamped to [0, kHorizon] before the conversion.
inline int64_t clamp(double p) { return p >= static_cast<double>(kHorizon) ? kHorizon : p > 0 ? sim::round_nonneg(p) : 0; }
inline int64_t add(int64_t a, int64_t b) { return std::min(a + b, kHorizon); }  // both in [0, kHorizon]

// The measured window [from, to): the device's busy figures count only their part inside
// it, so no share of the window can pass 1 however long one fetch, service, transfer or
// message is. Unset, everything counts.
struct MeasuredWindow {
  int64_t from_ps = 0, to_ps = INT64_MAX;
  int64_t from_ns = 0, to_ns = INT64_MAX;

  void set(Time from, Time to) {
    from_ns = from.ns();
    to_ns = to.ns();
    from_ps = from.ns() * kPerNs;  // a run is at most 2 h: no overflow
    to_ps = to.ns() * kPerNs;
  }
  // The part of [a, b) inside the window, in picoseconds, or in nanoseconds.
  int64_t in_ps(int64_t a, int64_t b) const { return std::max<int64_t>(0, std::min(b, to_ps) - std::max(a, from_ps)); }
  int64_t in_ns(int64_t a, int64_t b) const { return std::max<int64_t>(0, std::min(b, to_ns) - std::max(a, from_ns)); }
};

}  // namespace nvmesim::ps
