// Strong integer-nanosecond time types shared by the simulator, the policies and the hw
// runner. A vocabulary type only: it knows nothing of the simulator.
#pragma once

#include <compare>
#include <cstdint>

namespace nvmesim {

// A signed span of time in whole nanoseconds.
class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration ns(int64_t v) { return Duration(v); }
  static constexpr Duration us(int64_t v) { return Duration(v * 1000); }
  static constexpr Duration ms(int64_t v) { return Duration(v * 1000 * 1000); }
  static constexpr Duration s(int64_t v) { return Duration(v * 1000 * 1000 * 1000); }
  static constexpr Duration zero() { return Duration(0); }
  static constexpr Duration max() { return Duration(INT64_MAX / 4); }

  constexpr int64_t count_ns() const { return ns_; }

  constexpr Duration operator+(Duration o) const { return Duration(ns_ + o.ns_); }
  constexpr Duration operator-(Duration o) const { return Duration(ns_ - o.ns_); }
  constexpr Duration operator*(int64_t k) const { return Duration(ns_ * k); }
  constexpr Duration operator/(int64_t k) const { return Duration(ns_ / k); }
  constexpr int64_t operator/(Duration o) const { return ns_ / o.ns_; }
  constexpr Duration& operator+=(Duration o) { ns_ += o.ns_; return *this; }
  constexpr Duration& operator-=(Duration o) { ns_ -= o.ns_; return *this; }
  constexpr auto operator<=>(const Duration&) const = default;

 private:
  constexpr explicit Duration(int64_t v) : ns_(v) {}
  int64_t ns_ = 0;
};

// A point in time: nanoseconds since the start of a run (simulated or real).
class Time {
 public:
  constexpr Time() = default;
  static constexpr Time from_ns(int64_t v) { return Time(v); }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time never() { return Time(INT64_MAX / 2); }

  constexpr int64_t ns() const { return ns_; }

  constexpr Time operator+(Duration d) const { return Time(ns_ + d.count_ns()); }
  constexpr Time operator-(Duration d) const { return Time(ns_ - d.count_ns()); }
  constexpr Duration operator-(Time o) const { return Duration::ns(ns_ - o.ns_); }
  constexpr Time& operator+=(Duration d) { ns_ += d.count_ns(); return *this; }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  constexpr explicit Time(int64_t v) : ns_(v) {}
  int64_t ns_ = 0;
};

constexpr Duration max(Duration a, Duration b) { return a < b ? b : a; }
constexpr Duration min(Duration a, Duration b) { return a < b ? a : b; }
constexpr Time max(Time a, Time b) { return a < b ? b : a; }
constexpr Time min(Time a, Time b) { return a < b ? a : b; }

}  // namespace nvmesim
