// A block range the user allows to be overwritten: FIRST_LBA:COUNT, parsed strictly,
// and the check that it lies inside a namespace, computed without wrapping.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace nvmesim::hw {

struct LbaRange {
  uint64_t first = 0;
  uint64_t count = 0;
};

// "" and *out set on success; otherwise what is wrong (the caller names the option).
// Both parts are decimal digits only, COUNT >= 1, and FIRST + COUNT must not exceed
// 2^64 - 1 (the end is representable).
std::string parse_lba_range(std::string_view text, LbaRange* out);

// True when the range is non-empty and every block of it is below `size_blocks`.
// Written as a subtraction so no sum can wrap.
bool range_within(const LbaRange& r, uint64_t size_blocks);

}  // namespace nvmesim::hw
