// std::llround for values known to be in [0, 2^63), without the library call: the draws
// of service times and the device's picosecond spans round on every I/O, and llround's
// out-of-line call (it handles signs, NaN and the range) was 2% of a run.
#pragma once

#include <cassert>
#include <cstdint>

namespace nvmesim::sim {

// Half-way cases round up, as llround rounds them away from zero. Exact: below 2^52 the
// fraction x - trunc(x) is computed without error, and from 2^52 on every double is whole.
constexpr int64_t round_nonneg(double x) {
  assert(x >= 0 && x < 0x1p63);
  auto i = static_cast<int64_t>(x);
  if (x - static_cast<double>(i) >= 0.5) ++i;
  return i;
}

}  // namespace nvmesim::sim
