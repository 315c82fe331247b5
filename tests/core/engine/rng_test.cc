#include "sim/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

namespace nvmesim::sim {
namespace {

TEST(Rng, SameSeedAndKeyGiveTheSameStream) {
  Rng a(7, stream_key("device", 1)), b(7, stream_key("device", 1));
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.next(), b.next());
}

TEST(Rng, StreamsDifferBySeedAndByKey) {
  Rng base(7, stream_key("device", 1));
  Rng other_seed(8, stream_key("device", 1));
  Rng other_drive(7, stream_key("device", 2));
  Rng other_kind(7, stream_key("job", 1));
  uint64_t x = base.next();
  EXPECT_NE(x, other_seed.next());
  EXPECT_NE(x, other_drive.next());
  EXPECT_NE(x, other_kind.next());
}

TEST(Rng, ExponentialHasTheRequestedMean) {
  Rng r(1, 2);
  double sum = 0;
  const int n = 400000;
  for (int i = 0; i < n; ++i) sum += r.exponential(10.0);
  EXPECT_NEAR(sum / n, 10.0, 0.1);
}

// Rng::normal() is the ziggurat of sim/ziggurat_tables.h. The tests below hold its draws
// to the standard normal (moments, the CDF, the tails, symmetry) and its tables to their
// definition. Tolerances are stated in standard errors of the statistic at the test's
// sample size, never fitted to a run.

// P(Z > x) for a standard normal Z.
double upper_tail(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }

std::vector<double> normal_draws(uint64_t seed, size_t n) {
  Rng r(seed, stream_key("normal test"));
  std::vector<double> v(n);
  for (double& x : v) x = r.normal();
  return v;
}

// |count - n p| within 4 binomial standard errors.
void expect_binomial(uint64_t count, uint64_t n, double p, const char* what) {
  const double expected = static_cast<double>(n) * p;
  const double se = std::sqrt(expected * (1 - p));
  EXPECT_LE(std::abs(static_cast<double>(count) - expected), 4 * se)
      << what << ": " << count << " of " << n << ", expected " << expected << " +- " << se;
}

// The one-sample Kolmogorov-Smirnov statistic of draws (sorted here) against a CDF.
template <class Cdf>
double ks_statistic(std::vector<double> x, Cdf cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, static_cast<double>(i + 1) / n - f, f - static_cast<double>(i) / n});
  }
  return d;
}
// The asymptotic 0.1% critical value of sqrt(n) D (Kolmogorov's distribution).
constexpr double kKs001 = 1.94947;

TEST(Rng, SameSeedAndKeyGiveTheSameNormalStream) {
  Rng a(7, stream_key("device", 1)), b(7, stream_key("device", 1));
  for (int i = 0; i < 1000000; ++i) ASSERT_EQ(std::bit_cast<uint64_t>(a.normal()), std::bit_cast<uint64_t>(b.normal())) << i;
}

TEST(Rng, NormalMomentsOf4MDrawsAreStandard) {
  const size_t n = 4000000;
  const auto v = normal_draws(3, n);
  long double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  for (double x : v) {
    const long double x2 = static_cast<long double>(x) * x;
    s1 += x, s2 += x2, s3 += x2 * x, s4 += x2 * x2;
  }
  const double m1 = static_cast<double>(s1 / n), m2 = static_cast<double>(s2 / n);
  const double m3 = static_cast<double>(s3 / n), m4 = static_cast<double>(s4 / n);
  const double rn = std::sqrt(static_cast<double>(n));
  // Standard errors of the sample moments E[Z^k]: sqrt((E[Z^2k] - E[Z^k]^2) / n).
  EXPECT_NEAR(m1, 0.0, 4 * 1 / rn);                      // Var Z = 1
  EXPECT_NEAR(m2, 1.0, 4 * std::sqrt(2.0) / rn);         // E Z^4 - 1 = 2
  EXPECT_NEAR(m3, 0.0, 4 * std::sqrt(15.0) / rn);        // E Z^6 = 15
  EXPECT_NEAR(m4, 3.0, 4 * std::sqrt(105.0 - 9.0) / rn); // E Z^8 = 105
}

TEST(Rng, NormalPassesKolmogorovSmirnovAgainstTheNormalCdf) {
  for (uint64_t seed : {1, 2}) {
    const size_t n = 2000000;
    const double d = ks_statistic(normal_draws(seed, n), [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); });
    EXPECT_LT(d * std::sqrt(static_cast<double>(n)), kKs001) << "seed " << seed << ", D = " << d;
  }
}

// A chi-square test on bins of 0.1 over [-4, 4] (and the two tails): finer than the KS
// statistic at telling a wrong wedge, where the layers' rectangles meet the curve.
TEST(Rng, NormalPassesChiSquareOnFineBins) {
  const size_t n = 4000000;
  const double lo = -4, width = 0.1;
  const int inner = 80, bins = inner + 2;
  std::vector<uint64_t> count(bins);
  for (double x : normal_draws(4, n)) {
    const int b = x < lo ? 0 : std::min(inner + 1, 1 + static_cast<int>(std::floor((x - lo) / width)));
    ++count[b];
  }
  double chi2 = 0;
  for (int b = 0; b < bins; ++b) {
    const double from = b == 0 ? -INFINITY : lo + (b - 1) * width;
    const double to = b == bins - 1 ? INFINITY : lo + b * width;
    const double p = upper_tail(from) - upper_tail(to);
    const double e = static_cast<double>(n) * p;
    chi2 += (static_cast<double>(count[b]) - e) * (static_cast<double>(count[b]) - e) / e;
  }
  // The 0.1% critical value of chi-square with k = bins - 1 degrees of freedom, by
  // Wilson-Hilferty (z = 3.0902 is the normal's 0.1% upper quantile).
  const double k = bins - 1;
  const double crit = k * std::pow(1 - 2 / (9 * k) + 3.0902 * std::sqrt(2 / (9 * k)), 3);
  EXPECT_LT(chi2, crit);
}

TEST(Rng, NormalTailSharesMatchTheNormal) {
  const size_t n = 16000000;
  const double r = ziggurat::kR;
  uint64_t beyond2 = 0, beyond3 = 0, beyond4 = 0, beyond5 = 0;
  std::vector<double> tail;  // |z| beyond r: the draws of the exact tail method
  for (double x : normal_draws(5, n)) {
    const double a = std::abs(x);
    beyond2 += a > 2, beyond3 += a > 3, beyond4 += a > 4, beyond5 += a > 5;
    if (a > r) tail.push_back(a);
  }
  expect_binomial(beyond2, n, 2 * upper_tail(2), "P(|z| > 2)");
  expect_binomial(beyond3, n, 2 * upper_tail(3), "P(|z| > 3)");
  expect_binomial(beyond4, n, 2 * upper_tail(4), "P(|z| > 4)");
  expect_binomial(beyond5, n, 2 * upper_tail(5), "P(|z| > 5)");
  expect_binomial(tail.size(), n, 2 * upper_tail(r), "P(|z| > r)");
  // Within the tail, |z| given |z| > r follows the normal's conditional CDF.
  const double d = ks_statistic(tail, [&](double x) { return 1 - upper_tail(x) / upper_tail(r); });
  EXPECT_LT(d * std::sqrt(static_cast<double>(tail.size())), kKs001) << tail.size() << " draws beyond r, D = " << d;
}

TEST(Rng, NormalIsSymmetric) {
  const size_t n = 4000000;
  uint64_t positive = 0, above[3] = {}, below[3] = {};
  const double at[3] = {1, 2, 3};
  for (double x : normal_draws(6, n)) {
    positive += !std::signbit(x);
    for (int k = 0; k < 3; ++k) above[k] += x > at[k], below[k] += x < -at[k];
  }
  expect_binomial(positive, n, 0.5, "z >= 0");
  // Given |z| > t, the sign is a fair coin.
  for (int k = 0; k < 3; ++k) expect_binomial(above[k], above[k] + below[k], 0.5, "sign beyond t");
}

// The fast path's contract, draw by draw: of one 64-bit draw, bits 0-7 pick the layer i,
// bit 8 the sign and bits 11-63 the uniform u; when u X[i] < X[i+1] that is the value.
TEST(Rng, NormalFastPathIsTheLayerWidthTimesTheDrawsUniform) {
  Rng r(9, stream_key("fast path"));
  const int n = 1000000;
  uint64_t fast = 0;
  for (int k = 0; k < n; ++k) {
    Rng peek = r;
    const uint64_t b = peek.next();
    const auto i = static_cast<unsigned>(b & 0xff);
    const double x = static_cast<double>(b >> 11) * 0x1.0p-53 * ziggurat::kX[i];
    const double z = r.normal();
    if (x < ziggurat::kX[i + 1]) {
      ++fast;
      ASSERT_EQ(z, (b & 0x100) ? -x : x) << k;
      ASSERT_EQ(std::signbit(z), (b & 0x100) != 0) << k;
    }
  }
  expect_binomial(fast, n, ziggurat::kFastShare, "fast path");
}

// The tables against their definition (sim/ziggurat_tables.py), recomputed in long double.
TEST(Rng, ZigguratTablesMeetTheirDefinition) {
  using ziggurat::kF, ziggurat::kX, ziggurat::kR, ziggurat::kV;
  constexpr int n = ziggurat::kLayers;
  ASSERT_EQ(n, 256);  // normal() takes the layer from 8 bits
  EXPECT_EQ(kX[1], kR);
  EXPECT_EQ(kX[n], 0.0);
  EXPECT_EQ(kF[0], 0.0);
  EXPECT_EQ(kF[n], 1.0);
  // The base layer: the rectangle under f(r) and the tail beyond r make v.
  const long double base = static_cast<long double>(kR) * kF[1] + std::sqrt(M_PI / 2) * std::erfc(kR / std::sqrt(2.0));
  EXPECT_NEAR(static_cast<double>(base / kV), 1.0, 1e-14);
  long double fast = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_GT(kX[i], kX[i + 1]) << i;
    EXPECT_LT(kF[i], kF[i + 1]) << i;
    if (i >= 1) {
      // F[i] is f at the exact X[i], rounded; X[i] is rounded too, by up to half an ulp
      // (2^-53 relative), which moves f(X) by X^2 times that (d ln f / d ln x = -x^2).
      const long double x = kX[i];
      const double tolerance = (static_cast<double>(x * x) + 1) * 0x1p-53 + 0x1p-60;
      EXPECT_NEAR(static_cast<double>(kF[i] / std::exp(-x * x / 2)), 1.0, tolerance) << i;
    }
    // Equal areas. F[i+1] - F[i] loses up to log2(1 / (F[i+1] - F[i])) ~ 8 bits near the top.
    const long double area = static_cast<long double>(kX[i]) * (static_cast<long double>(kF[i + 1]) - kF[i]);
    EXPECT_NEAR(static_cast<double>(area / kV), 1.0, 1e-13) << i;
    fast += static_cast<long double>(kX[i + 1]) / kX[i];
  }
  EXPECT_NEAR(static_cast<double>(fast / n), ziggurat::kFastShare, 1e-15);
}

}  // namespace
}  // namespace nvmesim::sim
