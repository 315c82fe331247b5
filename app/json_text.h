// JSON text to a document with the nesting limit (limits::kMaxJsonDepth) enforced while
// parsing, so no deeply nested value ever reaches code that recurses (nlohmann's dump(),
// the readers). Documents built elsewhere (the Python edge) are checked with
// json_depth_exceeds, which does not recurse.
#pragma once

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

// A value for an error message: its JSON text, cut to about `max_chars`.
std::string json_excerpt(const nlohmann::json& v, std::size_t max_chars = 80);

}  // namespace nvmesim
