// JSON text to a document with the nesting limit (limits::kMaxJsonDepth) enforced by a
// scan of the text before parsing, so no deeply nested value ever reaches code that
// recurses (nlohmann's dump(), the readers). Documents built elsewhere (the Python edge) are checked with
// json_depth_exceeds, which does not recurse.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

namespace nvmesim {

struct JsonTextError {
  bool too_deep = false;  // well-formed so far, but nested past the limit
  std::string message;    // "invalid JSON: ...", "invalid JSON: nested deeper than 64 levels"
};

// The document, or why it is not one. Comments (// and /* */) are allowed.
std::variant<nlohmann::json, JsonTextError> parse_json_text(const std::string& text);

// Whether any value in `doc` is nested deeper than `max_depth` (the top level is depth 0),
// walked with an explicit stack.
bool json_depth_exceeds(const nlohmann::json& doc, int max_depth);

// Whether `s` is well-formed UTF-8 (as JSON text must be), the set nlohmann's encoder accepts.
bool valid_utf8(const std::string& s);

// The JSON pointer of the first object key or string in `doc` that is not valid UTF-8
// (a --set bare word or a fio value can bring such bytes in), or nullopt. Walked with an
// explicit stack.
std::optional<std::string> invalid_utf8_path(const nlohmann::json& doc);

// A value for an error message: its JSON text, cut to about `max_chars`; bytes that are
// not UTF-8 are shown as U+FFFD.
std::string json_excerpt(const nlohmann::json& v, std::size_t max_chars = 80);

}  // namespace nvmesim
