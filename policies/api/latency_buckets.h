// Completion latencies of one queue, as a policy that asks for them (kWatchesLatency) sees
// them: from a command's submission to the consumption of its CQE (what blk-mq's
// io_start_time_ns to the end of the request measures, and blk-stat and blk-iocost keep
// per window), counted in buckets a quarter of an octave wide (log-linear, as HdrHistogram
// and the kernel's latency histograms): each bucket's upper bound is about 19% above its
// lower, whatever the latency. The runner adds each completion (integer work: a compare, a
// bit width, a shift, an increment); the policy reads and clears them per window of its
// own. Only commands submitted since the last clear count: a window's latencies are then
// of what happened in it, not of commands an earlier mode or state held back.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "vocab/time.h"

namespace nvmesim::policy {

struct LatencyBuckets {
  static constexpr uint32_t kPerOctave = 4;
  // 0-3 ns one bucket each, then four per octave up to 2^33 ns (8.6 s); longer ones share
  // the last bucket.
  static constexpr uint32_t kCount = 4 + kPerOctave * 31;

  std::array<uint64_t, kCount> n{};
  uint64_t total = 0;
  Time from;  // commands submitted before this do not count

  static constexpr uint32_t bucket(int64_t ns) {
    if (ns < 4) return ns < 0 ? 0 : static_cast<uint32_t>(ns);
    const auto v = static_cast<uint64_t>(ns);
    const uint32_t e = static_cast<uint32_t>(std::bit_width(v)) - 1;  // >= 2
    const uint32_t b = kPerOctave * (e - 1) + static_cast<uint32_t>((v >> (e - 2)) & 3);
    return b < kCount ? b : kCount - 1;
  }
  // The smallest latency of bucket b, in ns.
  static constexpr int64_t lower(uint32_t b) {
    if (b < 4) return b;
    const uint32_t e = b / kPerOctave + 1, sub = b % kPerOctave;
    return static_cast<int64_t>((uint64_t{4} + sub) << (e - 2));
  }

  void add(int64_t ns) {
    ++n[bucket(ns)];
    ++total;
  }
  // A command submitted at `submitted` whose CQE was consumed at `consumed` (the runner).
  void add(Time submitted, Time consumed) {
    if (submitted >= from) add((consumed - submitted).count_ns());
  }
  // Starts over: commands submitted from `since` on.
  void clear(Time since) {
    n.fill(0);
    total = 0;
    from = since;
  }
  // The bucket of the per_1024-th quantile (e.g. 1014: the 99th percentile) of what was
  // added: the lowest bucket at or below which at least that share lies. 0 when empty.
  uint32_t quantile_bucket(uint32_t per_1024) const {
    if (total == 0) return 0;
    // The rank (1-based) of the quantile's completion, rounded up.
    const uint64_t rank = (total * per_1024 + 1023) / 1024;
    uint64_t seen = 0;
    for (uint32_t b = 0; b < kCount; ++b) {
      seen += n[b];
      if (seen >= rank && seen > 0) return b;
    }
    return kCount - 1;
  }
};

}  // namespace nvmesim::policy
