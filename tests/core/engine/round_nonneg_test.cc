#include "sim/round_nonneg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace nvmesim::sim {
namespace {

// round_nonneg stands in for std::llround on the hot path, so it must agree with it on
// every value it is given: halves, the doubles next to them, and the whole range.
TEST(RoundNonneg, AgreesWithLlroundAtHalvesAndTheirNeighbours) {
  for (int64_t k = 0; k < 100000; ++k) {
    const double half = static_cast<double>(k) + 0.5;
    for (double x : {static_cast<double>(k), half, std::nextafter(half, 0.0), std::nextafter(half, 1e300)})
      ASSERT_EQ(round_nonneg(x), std::llround(x)) << x;
  }
  EXPECT_EQ(round_nonneg(0.49999999999999994), std::llround(0.49999999999999994));  // x + 0.5 would give 1
  EXPECT_EQ(round_nonneg(0.0), 0);
}

TEST(RoundNonneg, AgreesWithLlroundOverTheWholeRange) {
  std::mt19937_64 g(3);
  for (int i = 0; i < 2000000; ++i) {
    // Uniform exponents from 2^-4 to 2^62 with random mantissas, and the edges of 2^52.
    const double x = std::ldexp(1.0 + static_cast<double>(g() >> 12) * 0x1p-52, static_cast<int>(g() % 67) - 4);
    ASSERT_EQ(round_nonneg(x), std::llround(x)) << x;
  }
  for (double x : {0x1p52 - 0.5, 0x1p52, 0x1p52 + 1, 0x1p53 - 1, std::nextafter(0x1p63, 0.0)})
    EXPECT_EQ(round_nonneg(x), std::llround(x)) << x;
}

}  // namespace
}  // namespace nvmesim::sim
