#include "vocab/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/rng.h"

namespace nvmesim::sim {
namespace {

TEST(Histogram, BucketsCoverEveryValueWithinOnePercent) {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{255}, int64_t{256}, int64_t{257}, int64_t{1000},
                    int64_t{65'537}, int64_t{999'999}, int64_t{3'600'000'000'000}, int64_t{1} << 61}) {
    std::size_t b = Histogram::bucket_of(v);
    EXPECT_LE(Histogram::bucket_low(b), v) << v;
    EXPECT_GE(Histogram::bucket_high(b), v) << v;
    double width = static_cast<double>(Histogram::bucket_high(b) - Histogram::bucket_low(b));
    EXPECT_LE(width, std::max(0.0, 0.01 * static_cast<double>(v))) << v;
  }
}

TEST(Histogram, QuantilesMatchSortedSamplesWithinOnePercent) {
  Rng rng(42, 7);
  Histogram h;
  std::vector<int64_t> v;
  for (int i = 0; i < 200000; ++i) {
    auto x = static_cast<int64_t>(std::exp(11.0 + 1.5 * rng.normal()));  // ns to seconds
    v.push_back(x);
    h.record(x);
  }
  std::sort(v.begin(), v.end());
  for (double q : {0.5, 0.9, 0.99, 0.999, 0.9999}) {
    auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
    double exact = static_cast<double>(v[rank]);
    EXPECT_NEAR(static_cast<double>(h.quantile(q)), exact, 0.01 * exact) << q;
  }
  EXPECT_EQ(h.max(), v.back());
  EXPECT_EQ(h.min(), v.front());
  double mean = 0;
  for (auto x : v) mean += static_cast<double>(x);
  EXPECT_NEAR(h.mean(), mean / static_cast<double>(v.size()), 1e-6 * mean / static_cast<double>(v.size()));
}

TEST(Histogram, MergeEqualsRecordingIntoOne) {
  Histogram a, b, both;
  for (int i = 1; i <= 1000; ++i) {
    (i % 3 ? a : b).record(i * 37);
    both.record(i * 37);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), both.count());
  EXPECT_EQ(a.quantile(0.99), both.quantile(0.99));
  EXPECT_EQ(a.mean(), both.mean());
}

}  // namespace
}  // namespace nvmesim::sim
