#include "sim/rng.h"

#include <gtest/gtest.h>

#include <cmath>

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

TEST(Rng, NormalIsStandard) {
  Rng r(3, 4);
  double s = 0, s2 = 0;
  const int n = 400000;
  for (int i = 0; i < n; ++i) {
    double x = r.normal();
    s += x;
    s2 += x * x;
  }
  EXPECT_NEAR(s / n, 0.0, 0.01);
  EXPECT_NEAR(s2 / n, 1.0, 0.01);
}

}  // namespace
}  // namespace nvmesim::sim
