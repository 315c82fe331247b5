// Strict parsing of --allow-write and of every numeric option, and the in-namespace
// check: each bad form of issue 8 is refused, nothing wraps.
#include "hw/runner/io/lba_range.h"

#include <gtest/gtest.h>

#include <limits>

#include "hw/base/strict_number.h"

namespace nvmesim::hw {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

std::string range_error(const std::string& text) {
  LbaRange r{7, 7};
  std::string err = parse_lba_range(text, &r);
  if (!err.empty()) {
    EXPECT_EQ(r.first, 7u) << "a refused range must not be stored";
    EXPECT_EQ(r.count, 7u);
  }
  return err;
}

TEST(LbaRange, ParsesFirstAndCount) {
  LbaRange r;
  ASSERT_EQ(parse_lba_range("4096:1536", &r), "");
  EXPECT_EQ(r.first, 4096u);
  EXPECT_EQ(r.count, 1536u);
  ASSERT_EQ(parse_lba_range("0:1", &r), "");
  EXPECT_EQ(r.first, 0u);
  EXPECT_EQ(r.count, 1u);
  ASSERT_EQ(parse_lba_range("18446744073709551614:1", &r), "");  // ends exactly at 2^64 - 1
  EXPECT_EQ(r.first, kMax - 1);
}

TEST(LbaRange, RefusesASign) {
  EXPECT_NE(range_error("-8:16").find("FIRST_LBA must be a non-negative decimal number"), std::string::npos);
  EXPECT_NE(range_error("+8:16"), "");
  EXPECT_NE(range_error("8:-16").find("COUNT"), std::string::npos);
  EXPECT_NE(range_error("8:+16"), "");
}

TEST(LbaRange, RefusesOtherBasesBlanksAndSuffixes) {
  EXPECT_NE(range_error("0x10:16"), "");
  EXPECT_NE(range_error(" 8:16"), "");
  EXPECT_NE(range_error("8 :16"), "");
  EXPECT_NE(range_error("8:16 "), "");
  EXPECT_NE(range_error("8:16k"), "");
  EXPECT_NE(range_error("8e3:16"), "");
  EXPECT_NE(range_error("8:1.5"), "");
}

TEST(LbaRange, RefusesMissingParts) {
  EXPECT_NE(range_error("816").find("FIRST_LBA:COUNT"), std::string::npos);
  EXPECT_NE(range_error(":16"), "");
  EXPECT_NE(range_error("8:"), "");
  EXPECT_NE(range_error(""), "");
  EXPECT_NE(range_error("8:16:4"), "");
}

TEST(LbaRange, RefusesAnEmptyRange) { EXPECT_NE(range_error("8:0").find("COUNT must be in 1.."), std::string::npos); }

TEST(LbaRange, RefusesOverflow) {
  EXPECT_NE(range_error("18446744073709551616:1").find("too large"), std::string::npos);  // 2^64
  EXPECT_NE(range_error("1:18446744073709551616").find("too large"), std::string::npos);
  EXPECT_NE(range_error("99999999999999999999:16").find("too large"), std::string::npos);
  // Each part fits, the end does not: first + count would wrap to a small number.
  EXPECT_NE(range_error("18446744073709551615:1").find("overflows"), std::string::npos);
  EXPECT_NE(range_error("18446744073709551608:16").find("overflows"), std::string::npos);
}

TEST(LbaRange, WithinTheNamespaceWithoutWrapping) {
  EXPECT_TRUE(range_within({0, 131072}, 131072));
  EXPECT_TRUE(range_within({131071, 1}, 131072));
  EXPECT_FALSE(range_within({131071, 2}, 131072));
  EXPECT_FALSE(range_within({131072, 1}, 131072));
  EXPECT_FALSE(range_within({5, 0}, 131072));
  // What "-8:16" became through std::stoull: first + count wraps to 8, below the size.
  EXPECT_FALSE(range_within({kMax - 7, 16}, 131072));
  EXPECT_FALSE(range_within({1, kMax}, 131072));
  EXPECT_FALSE(range_within({0, 1}, 0));
}

TEST(StrictNumber, AcceptsDigitsInRange) {
  uint64_t v = 0;
  EXPECT_EQ(parse_decimal("10000", 1, 86400000, &v), "");
  EXPECT_EQ(v, 10000u);
  EXPECT_EQ(parse_decimal("010", 0, 100, &v), "");  // decimal, not octal
  EXPECT_EQ(v, 10u);
  EXPECT_EQ(parse_decimal("18446744073709551615", 0, kMax, &v), "");
  EXPECT_EQ(v, kMax);
}

TEST(StrictNumber, RefusesEveryOtherForm) {
  uint64_t v = 42;
  for (const char* bad : {"", "-1", "+1", "0x10", "10x", "1e3", " 1", "1 ", "1.0", "ten", "-0"})
    EXPECT_NE(parse_decimal(bad, 0, kMax, &v), "") << "'" << bad << "'";
  EXPECT_NE(parse_decimal("99999999999999999999", 0, kMax, &v).find("too large"), std::string::npos);
  EXPECT_NE(parse_decimal("18446744073709551616", 0, kMax, &v).find("too large"), std::string::npos);
  EXPECT_NE(parse_decimal("0", 1, 10, &v).find("must be in 1..10"), std::string::npos);
  EXPECT_NE(parse_decimal("11", 1, 10, &v), "");
  EXPECT_EQ(v, 42u) << "a refused value must not be stored";
}

}  // namespace
}  // namespace nvmesim::hw
