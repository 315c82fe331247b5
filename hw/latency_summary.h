// Mean, percentiles and extremes of a set of latencies (nearest-rank percentiles).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace nvmesim::hw {

struct LatencySummary {
  uint64_t count = 0;
  double mean_ns = 0;
  int64_t min_ns = 0, p50_ns = 0, p99_ns = 0, max_ns = 0;
};

inline LatencySummary summarize(std::vector<int64_t> v) {
  LatencySummary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto rank = [&](double p) {
    size_t i = size_t(p * double(v.size()) + 0.999999);  // ceil(p * n), 1-based
    return v[std::clamp<size_t>(i, 1, v.size()) - 1];
  };
  double sum = 0;
  for (int64_t x : v) sum += double(x);
  s.count = v.size();
  s.mean_ns = sum / double(v.size());
  s.min_ns = v.front();
  s.p50_ns = rank(0.50);
  s.p99_ns = rank(0.99);
  s.max_ns = v.back();
  return s;
}

}  // namespace nvmesim::hw
