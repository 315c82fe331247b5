#include "app/json_text.h"

#include <utility>
#include <vector>

#include "app/input_limits.h"

namespace nvmesim {
using nlohmann::json;

std::variant<json, JsonTextError> parse_json_text(const std::string& text) {
  bool too_deep = false;
  // The parser itself does not recurse; the callback sees each value's depth and the
  // document is refused as soon as one goes past the limit.
  json::parser_callback_t limit = [&too_deep](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= limits::kMaxJsonDepth)
      too_deep = true;
    return !too_deep;
  };
  json doc;
  try {
    doc = json::parse(text, limit, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    if (too_deep) return JsonTextError{true, "invalid JSON: nested deeper than " + std::to_string(limits::kMaxJsonDepth) + " levels"};
    return JsonTextError{false, "invalid JSON: " + std::string(e.what())};
  }
  if (too_deep) return JsonTextError{true, "invalid JSON: nested deeper than " + std::to_string(limits::kMaxJsonDepth) + " levels"};
  return doc;
}

bool json_depth_exceeds(const json& doc, int max_depth) {
  std::vector<std::pair<const json*, int>> stack{{&doc, 0}};
  while (!stack.empty()) {
    auto [v, depth] = stack.back();
    stack.pop_back();
    if (!v->is_structured()) continue;
    if (depth >= max_depth) return true;
    for (const auto& child : *v) stack.emplace_back(&child, depth + 1);
  }
  return false;
}

std::string json_excerpt(const json& v, std::size_t max_chars) {
  if (v.is_structured() && json_depth_exceeds(v, limits::kMaxJsonDepth)) return v.is_array() ? "[...]" : "{...}";
  std::string s = v.dump();
  if (s.size() > max_chars) s = s.substr(0, max_chars) + "...";
  return s;
}

}  // namespace nvmesim
