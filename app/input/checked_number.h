// User numbers to integers with no undefined behaviour at any magnitude: the JSON reader
// and the fio reader convert through these, and a value out of range is reported by the
// caller instead of being wrapped, truncated or converted with undefined behaviour.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace nvmesim {

// A wide integer that holds every JSON integer (signed or unsigned 64-bit) exactly, and
// integral floats clamped to +-2^100: far outside any range we accept, so the range
// check that follows reports them.
using WideInt = __int128;

// An integral JSON number (an integer, or a float with no fractional part), or nullopt
// for anything else (fractions, strings, NaN cannot come from JSON).
std::optional<WideInt> json_integral(const nlohmann::json& v);

// Decimal text with an optional leading '-' and nothing else ("12", "-3"; not " 1",
// "1e3", "0x10"), or nullopt. Very long digit strings clamp like json_integral.
std::optional<WideInt> parse_integral(std::string_view s);

// `v` if it lies in [min, max], else nullopt.
std::optional<int64_t> in_range(std::optional<WideInt> v, int64_t min, int64_t max);
std::optional<uint64_t> in_range_u64(std::optional<WideInt> v, uint64_t min, uint64_t max);

// a * b, or nullopt on overflow.
std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b);
std::optional<int64_t> checked_mul(int64_t a, int64_t b);

// Decimal text of a wide integer (for messages).
std::string wide_to_string(WideInt v);

}  // namespace nvmesim
