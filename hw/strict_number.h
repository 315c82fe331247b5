// Strict decimal parsing for the command line: digits only (no sign, no spaces, no
// base prefix, no suffix), no overflow, within [min, max]. std::stoull and CLI11's own
// conversion accept "-8" (it wraps), "0x10", "010" (octal) and silently saturate
// 99999999999999999999; a drive's LBAs must never come from such a value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace nvmesim::hw {

// "" and *out set on success; otherwise a message saying what is wrong with `text`
// (without naming the option: the caller does that).
std::string parse_decimal(std::string_view text, uint64_t min, uint64_t max, uint64_t* out);

// 'text', for messages.
std::string quote(std::string_view text);

}  // namespace nvmesim::hw
