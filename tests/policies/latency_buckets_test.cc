#include "policies/api/latency_buckets.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace nvmesim::policy {
namespace {

// Every latency falls in the bucket whose bounds hold it, and each bucket's upper bound is
// at most 5/4 of its lower (a quarter of an octave: 2^(1/4) = 1.19 on average).
TEST(LatencyBuckets, EachLatencyLiesInsideItsBucketAQuarterOctaveWide) {
  for (int64_t v : {0L, 1L, 3L, 4L, 5L, 7L, 8L, 9L, 15L, 16L, 1000L, 57344L, 60000L, 65535L, 65536L, 1000000L,
                    8589934591L}) {
    const uint32_t b = LatencyBuckets::bucket(v);
    EXPECT_LE(LatencyBuckets::lower(b), v) << v;
    if (b + 1 < LatencyBuckets::kCount) {
      EXPECT_GT(LatencyBuckets::lower(b + 1), v) << v;
    }
  }
  for (uint32_t b = 4; b + 1 < LatencyBuckets::kCount; ++b) {
    EXPECT_EQ(LatencyBuckets::bucket(LatencyBuckets::lower(b)), b);
    EXPECT_LE(LatencyBuckets::lower(b + 1) * 4, LatencyBuckets::lower(b) * 5) << b;
  }
  EXPECT_EQ(LatencyBuckets::bucket(-5), 0u);
  EXPECT_EQ(LatencyBuckets::bucket(INT64_MAX), LatencyBuckets::kCount - 1);  // longer than 8.6 s: the last
}

// The 99th percentile of 1000 completions, 985 at 50 us and 15 at 400 us, is in 400 us's
// bucket; of 995 and 5, in 50 us's. Empty: 0.
TEST(LatencyBuckets, QuantileBucketIsTheLowestHoldingTheShare) {
  LatencyBuckets l;
  EXPECT_EQ(l.quantile_bucket(1014), 0u);
  for (int i = 0; i < 985; ++i) l.add(50000);
  for (int i = 0; i < 15; ++i) l.add(400000);
  EXPECT_EQ(l.total, 1000u);
  EXPECT_EQ(l.quantile_bucket(1014), LatencyBuckets::bucket(400000));
  EXPECT_EQ(l.quantile_bucket(512), LatencyBuckets::bucket(50000));
  l.clear(Time::zero());
  EXPECT_EQ(l.total, 0u);
  for (int i = 0; i < 995; ++i) l.add(50000);
  for (int i = 0; i < 5; ++i) l.add(400000);
  EXPECT_EQ(l.quantile_bucket(1014), LatencyBuckets::bucket(50000));
  EXPECT_EQ(l.quantile_bucket(1024), LatencyBuckets::bucket(400000));  // the largest
}

// What a runner adds counts only if submitted since the last clear: a window's latencies
// are of commands it saw submitted, not of those an earlier mode held back.
TEST(LatencyBuckets, OnlyCommandsSubmittedSinceTheClearCount) {
  LatencyBuckets l;
  l.clear(Time::zero() + Duration::us(100));
  l.add(Time::zero() + Duration::us(99), Time::zero() + Duration::us(500));   // before: not counted
  l.add(Time::zero() + Duration::us(100), Time::zero() + Duration::us(150));  // at the clear: counted
  EXPECT_EQ(l.total, 1u);
  EXPECT_EQ(l.quantile_bucket(1024), LatencyBuckets::bucket(50000));
}

}  // namespace
}  // namespace nvmesim::policy
