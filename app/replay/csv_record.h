// The text-level pieces of the replay readers: CSV records (RFC 4180) and strict integers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvmesim::replay {

// One CSV record with the line it starts on (a quoted field may span lines).
struct CsvRecord {
  uint32_t line = 0;
  std::vector<std::string> fields;
};

// RFC 4180: fields separated by commas, quoted fields may hold commas, doubled quotes
// and newlines; CRLF or LF ends a record. Reads one record from `pos` on.
std::optional<CsvRecord> next_record(std::string_view text, std::size_t& pos, uint32_t& line);

// The whole of `s` as a decimal integer, else nothing.
std::optional<int64_t> parse_int(std::string_view s);

}  // namespace nvmesim::replay
