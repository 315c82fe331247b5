#include "hw/runner/io/lba_range.h"

#include <limits>

#include "hw/base/strict_number.h"

namespace nvmesim::hw {

std::string parse_lba_range(std::string_view text, LbaRange* out) {
  const std::string quoted = quote(text);
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return "wants FIRST_LBA:COUNT, got " + quoted;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  LbaRange r;
  if (std::string err = parse_decimal(text.substr(0, colon), 0, kMax, &r.first); !err.empty())
    return "FIRST_LBA " + err + " (in " + quoted + ")";
  if (std::string err = parse_decimal(text.substr(colon + 1), 1, kMax, &r.count); !err.empty())
    return "COUNT " + err + " (in " + quoted + ")";
  if (r.count > kMax - r.first) return "FIRST_LBA + COUNT overflows 64 bits in " + quoted;
  *out = r;
  return "";
}

bool range_within(const LbaRange& r, uint64_t size_blocks) {
  return r.count > 0 && r.first < size_blocks && r.count <= size_blocks - r.first;
}

}  // namespace nvmesim::hw
