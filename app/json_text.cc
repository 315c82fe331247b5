#include "app/json_text.h"

#include <utility>
#include <vector>

#include "app/input_limits.h"
#include "app/json_reader.h"

namespace nvmesim {
using nlohmann::json;

namespace {

// Whether brackets nest deeper than `max_depth` anywhere in the text, skipping strings
// and comments: one pass with no allocation, before the parser builds anything.
bool text_depth_exceeds(const std::string& text, int max_depth) {
  int depth = 0;
  for (std::size_t i = 0, n = text.size(); i < n; ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < n && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      auto end = text.find("*/", i + 2);
      i = end == std::string::npos ? n : end + 1;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

std::variant<json, JsonTextError> parse_json_text(const std::string& text) {
  // The top-level value is depth 0, as in json_depth_exceeds: max_depth + 1 brackets.
  if (text_depth_exceeds(text, limits::kMaxJsonDepth))
    return JsonTextError{true, "invalid JSON: nested deeper than " + std::to_string(limits::kMaxJsonDepth) + " levels"};
  try {
    return json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    return JsonTextError{false, "invalid JSON: " + std::string(e.what())};
  } catch (const json::out_of_range& e) {  // a number past double's range (1e400)
    return JsonTextError{false, "invalid JSON: " + std::string(e.what())};
  }
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

bool valid_utf8(const std::string& s) {
  try {
    (void)json(s).dump();
    return true;
  } catch (const json::type_error&) {
    return false;
  }
}

std::optional<std::string> invalid_utf8_path(const json& doc) {
  std::vector<std::pair<const json*, std::string>> stack{{&doc, ""}};
  while (!stack.empty()) {
    auto [v, path] = stack.back();
    stack.pop_back();
    if (v->is_string() && !valid_utf8(v->get_ref<const std::string&>())) return path.empty() ? "/" : path;
    if (v->is_object()) {
      for (auto it = v->begin(); it != v->end(); ++it) {
        if (!valid_utf8(it.key())) return (path.empty() ? "" : path) + "/";  // the key itself is unprintable
        stack.emplace_back(&it.value(), path + "/" + json_pointer_token(it.key()));
      }
    } else if (v->is_array()) {
      for (std::size_t i = 0; i < v->size(); ++i) stack.emplace_back(&(*v)[i], path + "/" + std::to_string(i));
    }
  }
  return std::nullopt;
}

std::string json_excerpt(const json& v, std::size_t max_chars) {
  if (v.is_structured() && json_depth_exceeds(v, limits::kMaxJsonDepth)) return v.is_array() ? "[...]" : "{...}";
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > max_chars) s = s.substr(0, max_chars) + "...";
  return s;
}

}  // namespace nvmesim
