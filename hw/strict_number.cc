#include "hw/strict_number.h"

#include <charconv>
#include <system_error>

namespace nvmesim::hw {

std::string quote(std::string_view text) {
  // Appended piecewise: GCC 12 warns (-Wrestrict) on "'" + std::string(text) + "'".
  std::string q;
  q.reserve(text.size() + 2);
  q += '\'';
  q.append(text);
  q += '\'';
  return q;
}

std::string parse_decimal(std::string_view text, uint64_t min, uint64_t max, uint64_t* out) {
  const std::string quoted = quote(text);
  if (text.empty()) return "must be a decimal number, got nothing";
  for (char c : text)
    if (c < '0' || c > '9') return "must be a non-negative decimal number (digits only), got " + quoted;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 10);
  if (ec == std::errc::result_out_of_range) return "is too large, got " + quoted;
  if (ec != std::errc() || end != text.data() + text.size()) return "must be a decimal number, got " + quoted;
  if (v < min || v > max)
    return "must be in " + std::to_string(min) + ".." + std::to_string(max) + ", got " + quoted;
  *out = v;
  return "";
}

}  // namespace nvmesim::hw
