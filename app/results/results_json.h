// The parts of the results document (docs/results.md, `nvmesim-results/1`) that do not
// depend on the simulator (the format name, the percentiles, the timeline cap, the JSON of
// metrics, latency, counters and mode changes). The one writer, results::to_json (app/results/run_record.cc), uses them for
// the RunRecord that the simulator (app/run/run.cc) and the hw runner (hw/runner/results/run_results.cc)
// both fill.
#pragma once

#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "policies/api/counters.h"
#include "vocab/histogram.h"
#include "vocab/time.h"

namespace nvmesim::results {

inline constexpr const char* kFormat = "nvmesim-results/1";

// The latency percentiles every `latency_ns` object carries, in order.
struct Percentile {
  const char* key;
  double q;
};
inline constexpr Percentile kPercentiles[] = {
    {"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}, {"p99.9", 0.999}, {"p99.99", 0.9999}};

// Interrupt totals of a level (queue, drive, job, aggregate).
struct Interrupts {
  uint64_t useful = 0, spurious = 0, masked_lazily = 0;
  uint64_t total() const { return useful + spurious + masked_lazily; }
  // A queue's counters plus the interrupts that arrived while its vector was disabled.
  void add(const policy::QueueCounters& c, uint64_t lazy) {
    useful += c.irq_useful + c.irq_while_polling;
    spurious += c.irq_spurious;
    masked_lazily += lazy;
  }
};

// Rounds a fraction to 1e-9 so that tiny float noise never reaches the file.
double frac(double x);

// `latency_ns`: mean, the percentiles of kPercentiles, max.
nlohmann::json latency_json(const sim::Histogram& h);
// `[[latency_ns, cumulative_fraction], ...]`, one point per non-empty bucket.
nlohmann::json latency_cdf_json(const sim::Histogram& h);
// The figures every level has: ios, iops, bytes_per_s, latency_ns, interrupts,
// irqs_per_io, completions_per_irq. Rates per second of `window`.
nlohmann::json metrics_json(uint64_t ios, uint64_t bytes, const sim::Histogram& lat, const Interrupts& irq,
                            Duration window);
// A queue's `counters`.
nlohmann::json counters_json(const policy::QueueCounters& c);
// One `mode_timeline` entry.
nlohmann::json mode_change_json(int64_t t_ns, std::string_view from, std::string_view to, std::string_view reason);

}  // namespace nvmesim::results
