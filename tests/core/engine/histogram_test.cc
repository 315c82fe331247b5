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

// fio's stddev: the sample standard deviation (n - 1), exact whatever the buckets.
TEST(Histogram, StddevIsTheExactSampleStandardDeviation) {
  Histogram h;
  EXPECT_EQ(h.stddev(), 0.0);
  h.record(1000);
  EXPECT_EQ(h.stddev(), 0.0);  // one value: none
  Rng rng(3, 1);
  std::vector<double> v = {1000};
  for (int i = 0; i < 50000; ++i) {
    auto x = static_cast<int64_t>(std::exp(12.0 + 0.5 * rng.normal()));
    v.push_back(static_cast<double>(x));
    h.record(x);
  }
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const double exact = std::sqrt(ss / static_cast<double>(v.size() - 1));
  EXPECT_NEAR(h.stddev(), exact, 1e-9 * exact);
  Histogram a, b;
  for (std::size_t i = 0; i < v.size(); ++i) (i % 2 ? a : b).record(static_cast<int64_t>(v[i]));
  a.merge(b);
  EXPECT_NEAR(a.stddev(), exact, 1e-9 * exact);
  Histogram same;
  same.record_n(5000, 10);
  EXPECT_EQ(same.stddev(), 0.0);
}

// Every non-empty bucket once, in order, its counts summing to the count.
TEST(Histogram, ForEachBucketVisitsTheNonEmptyBucketsInOrder) {
  Histogram h;
  h.record_n(7, 2);
  h.record(1000);
  h.record(1000);
  h.record(123456);
  std::vector<std::pair<int64_t, uint64_t>> seen;
  h.for_each_bucket([&](int64_t low, uint64_t n) { seen.emplace_back(low, n); });
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], (std::pair<int64_t, uint64_t>{7, 2}));
  EXPECT_EQ(seen[1].second, 2u);
  EXPECT_LE(seen[1].first, 1000);
  EXPECT_GT(seen[1].first, 990);
  EXPECT_LE(seen[2].first, 123456);
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

// Buckets are allocated up to the largest value recorded: merging a histogram with larger
// values into one with smaller ones (and the reverse) must give what one histogram that
// saw everything gives, in every bucket the CDF shows.
TEST(Histogram, MergeAcrossDifferentRangesEqualsRecordingIntoOne) {
  Histogram small, large, both;
  for (int i = 1; i <= 500; ++i) {
    small.record(i);                    // exact buckets only
    large.record(int64_t{1} << (i % 40));  // up to 2^39 ns
    both.record(i);
    both.record(int64_t{1} << (i % 40));
  }
  Histogram small_then_large = small, large_then_small = large;
  small_then_large.merge(large);
  large_then_small.merge(small);
  EXPECT_EQ(small_then_large.cdf(), both.cdf());
  EXPECT_EQ(large_then_small.cdf(), both.cdf());
  EXPECT_EQ(small_then_large.quantile(0.5), both.quantile(0.5));
  EXPECT_EQ(large_then_small.max(), both.max());
}

TEST(Histogram, AnEmptyHistogramHoldsNoBucketsAndGrowsWithItsLargestValue) {
  Histogram h;
  EXPECT_EQ(h.heap_bytes(), 0u);
  EXPECT_EQ(h.quantile(0.99), 0);
  EXPECT_TRUE(h.cdf().empty());
  h.record(100'000);  // 100 us: 11 KB of buckets, not the 58 KB of the whole range
  const std::size_t at_100us = h.heap_bytes();
  EXPECT_GT(at_100us, 0u);
  EXPECT_LT(at_100us, 16u * 1024);
  h.record(50'000);   // smaller: no growth
  EXPECT_EQ(h.heap_bytes(), at_100us);
  h.record(int64_t{1} << 62);
  EXPECT_EQ(h.quantile(1.0), int64_t{1} << 62);
  h.clear();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.quantile(0.5), 0);
}

}  // namespace
}  // namespace nvmesim::sim
