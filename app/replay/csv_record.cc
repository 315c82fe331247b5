#include "app/replay/csv_record.h"

#include <charconv>
#include <system_error>

namespace nvmesim::replay {

std::optional<CsvRecord> next_record(std::string_view text, std::size_t& pos, uint32_t& line) {
  if (pos >= text.size()) return std::nullopt;
  CsvRecord r;
  r.line = line;
  std::string field;
  bool quoted = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (quoted) {
      if (c == '"') {
        if (pos + 1 < text.size() && text[pos + 1] == '"') {
          field += '"';
          ++pos;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      r.fields.push_back(std::move(field));
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n') ++pos;
      ++pos;
      ++line;
      break;
    } else {
      field += c;
    }
  }
  r.fields.push_back(std::move(field));
  return r;
}

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace nvmesim::replay
