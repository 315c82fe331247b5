// Write amplification of garbage collection under uniformly random writes: the closed form
// of Xiang and Kurkoski, "An Improved Analytical Expression for Write Amplification in NAND
// Flash" (ICNC 2012, arXiv:1110.4245), which counts the valid pages of the block greedy
// collection picks; it is the large-block limit of Desnoyers' greedy/LRU model ("Analytic
// Modeling of SSD Write Performance", SYSTOR 2012):
//
//   WA = a / (a + W0(-a e^-a)),   a = (1 + over_provisioning) / utilization
//
// a is the physical capacity over the valid data (spare factor), W0 the principal branch of
// Lambert's W. Xiang and Kurkoski's check: over-provisioning 0.3 gives 2.36 (simulation
// 2.35; the older (1 + op) / (2 op) of Agarwal and Marrow gives 2.17). A ratio computed
// once per drive, never a time.
#pragma once

#include <cmath>
#include <limits>

namespace nvmesim {

// W0(x) for x in [-1/e, 0]: Halley's iteration from the branch point's series.
inline double lambert_w0(double x) {
  const double e = std::exp(1.0);
  if (x <= -1 / e) return -1;
  double w = x < -0.25 ? -1 + std::sqrt(2 * (1 + e * x)) : x;  // near -1/e: the series; else x
  for (int i = 0; i < 64; ++i) {
    const double ew = std::exp(w), f = w * ew - x;
    const double step = f / (ew * (w + 1) - (w + 2) * f / (2 * w + 2));
    w -= step;
    if (std::fabs(step) <= 1e-15 * (1 + std::fabs(w))) break;
  }
  return w;
}

// Infinite without spare flash (a <= 1: nothing to collect into).
inline double greedy_write_amplification(double over_provisioning, double utilization) {
  const double a = (1 + over_provisioning) / utilization;
  if (a <= 1) return std::numeric_limits<double>::infinity();
  return a / (a + lambert_w0(-a * std::exp(-a)));
}

}  // namespace nvmesim
