#include "app/input/checked_number.h"

#include <cmath>
#include <string>

namespace nvmesim {
namespace {
constexpr WideInt kClamp = WideInt{1} << 100;
}  // namespace

std::optional<WideInt> json_integral(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return static_cast<WideInt>(v.get<uint64_t>());
  if (v.is_number_integer()) return static_cast<WideInt>(v.get<int64_t>());
  if (!v.is_number_float()) return std::nullopt;
  double x = v.get<double>();
  if (!std::isfinite(x) || std::floor(x) != x) return std::nullopt;
  // Compared as doubles first: converting a double outside the target's range is
  // undefined behaviour. 2^100 is exact in a double.
  if (x >= 0x1p100) return kClamp;
  if (x <= -0x1p100) return -kClamp;
  return static_cast<WideInt>(x);
}

std::optional<WideInt> parse_integral(std::string_view s) {
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  WideInt v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    if (v < kClamp) v = v * 10 + (c - '0');
  }
  if (v > kClamp) v = kClamp;
  return neg ? -v : v;
}

std::optional<int64_t> in_range(std::optional<WideInt> v, int64_t min, int64_t max) {
  if (!v || *v < min || *v > max) return std::nullopt;
  return static_cast<int64_t>(*v);
}

std::optional<uint64_t> in_range_u64(std::optional<WideInt> v, uint64_t min, uint64_t max) {
  if (!v || *v < static_cast<WideInt>(min) || *v > static_cast<WideInt>(max)) return std::nullopt;
  return static_cast<uint64_t>(*v);
}

std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::string wide_to_string(WideInt v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  std::string s;
  while (v != 0) {
    int d = static_cast<int>(v % 10);
    s.insert(s.begin(), static_cast<char>('0' + (d < 0 ? -d : d)));
    v /= 10;
  }
  return neg ? "-" + s : s;
}

}  // namespace nvmesim
