// Draws service times from a DistSpec. Doubles are used only inside the draw; the result
// is whole nanoseconds.
#pragma once

#include <algorithm>
#include <cmath>

#include "sim/rng.h"
#include "sim/round_nonneg.h"
#include "vocab/profiles.h"

namespace nvmesim {

class ServiceTime {
 public:
  explicit ServiceTime(const ServiceSpec& spec) : spec_(spec) {
    if (spec.dist.kind == DistSpec::Kind::lognormal) {
      // Parameterised by the mean: mu = ln(mean) - sigma^2 / 2.
      double s = spec.dist.sigma;
      mu_ = std::log(static_cast<double>(spec.dist.mean.count_ns())) - s * s / 2;
    }
  }

  // A draw never exceeds this (a lognormal tail with a large sigma would pass 2^63 ns).
  static constexpr double kMaxDrawNs = 3600e9;

  Duration draw(sim::Rng& rng, uint32_t bytes) const {
    Duration extra = spec_.per_extra_4k * ((bytes > 4096 ? bytes - 1 : 0) / 4096);
    return base(rng) + extra;
  }

 private:
  // ns from a double, bounded before the conversion (rounding an out-of-range value has
  // no defined result).
  static Duration clamped(double ns) { return Duration::ns(sim::round_nonneg(std::clamp(ns, 0.0, kMaxDrawNs))); }

  Duration base(sim::Rng& rng) const {
    const DistSpec& d = spec_.dist;
    switch (d.kind) {
      case DistSpec::Kind::constant:
        return d.mean;
      case DistSpec::Kind::exponential:
        return clamped(rng.exponential(static_cast<double>(d.mean.count_ns())));
      case DistSpec::Kind::lognormal:
        return clamped(std::exp(mu_ + d.sigma * rng.normal()));
      case DistSpec::Kind::empirical: {
        // Inverse CDF with linear interpolation between points (first point from 0).
        double u = rng.uniform();
        auto it = std::lower_bound(d.cdf.begin(), d.cdf.end(), u,
                                   [](const auto& p, double v) { return p.first < v; });
        if (it == d.cdf.end()) return d.cdf.back().second;
        double p0 = 0, t0 = 0;
        if (it != d.cdf.begin()) {
          p0 = std::prev(it)->first;
          t0 = static_cast<double>(std::prev(it)->second.count_ns());
        }
        double t1 = static_cast<double>(it->second.count_ns());
        double f = it->first > p0 ? (u - p0) / (it->first - p0) : 1.0;
        return clamped(t0 + f * (t1 - t0));
      }
    }
    return d.mean;
  }

  ServiceSpec spec_;
  double mu_ = 0;
};

}  // namespace nvmesim
