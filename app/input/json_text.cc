#include "app/input/json_text.h"

#include <functional>
#include <set>
#include <utility>
#include <vector>

#include "app/input/input_limits.h"
#include "app/input/json_reader.h"

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

// A key that appears twice in one object: nlohmann keeps the last silently, so a first
// value that is wrong (or a pasted block that repeats a key) would be hidden.
struct DuplicateKey {
  std::string path;  // JSON pointer of the repeated key
};

// Follows the parse (nlohmann's callback) to know where it is, and throws DuplicateKey
// at a key its object already has.
class KeyTracker {
 public:
  bool operator()(int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start: frames_.push_back({true, {}, {}, 0}); break;
      case json::parse_event_t::array_start: frames_.push_back({false, {}, {}, 0}); break;
      case json::parse_event_t::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second) throw DuplicateKey{path()};
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        element_done();
        break;
      case json::parse_event_t::value: element_done(); break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;    // an object's current key
    std::size_t index;  // an array's current element
  };
  void element_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }
  std::string path() const {
    std::string p;
    for (const Frame& f : frames_) p += "/" + (f.object ? json_pointer_token(f.key) : std::to_string(f.index));
    return p;
  }
  std::vector<Frame> frames_;
};

}  // namespace

std::variant<json, JsonTextError> parse_json_text(const std::string& text) {
  // A NUL byte ends the text for some readers and not for others: never valid here.
  if (auto nul = text.find('\0'); nul != std::string::npos)
    return JsonTextError{false, "invalid JSON: a NUL byte at offset " + std::to_string(nul)};
  // The top-level value is depth 0, as in json_depth_exceeds: max_depth + 1 brackets.
  if (text_depth_exceeds(text, limits::kMaxJsonDepth))
    return JsonTextError{true, "invalid JSON: nested deeper than " + std::to_string(limits::kMaxJsonDepth) + " levels"};
  try {
    KeyTracker keys;
    return json::parse(text, std::ref(keys), /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const DuplicateKey& d) {
    return JsonTextError{false, "invalid JSON: duplicate key at " + d.path + " (a key may appear once in an object)"};
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

// Well-formed UTF-8 as Unicode's table 3-7 defines it (no overlong forms, no surrogates,
// nothing past U+10FFFF): the same set nlohmann's encoder accepts (its DFA implements that
// table; input_safety_test checks the two agree). Written out rather than calling dump()
// on a copy, which allocated twice per string and was half of a scenario load.
bool valid_utf8(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  auto cont = [&](const unsigned char* q, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return q < end && *q >= lo && *q <= hi;
  };
  while (p < end) {
    const unsigned char c = *p;
    if (c < 0x80) { ++p; continue; }
    if (c >= 0xC2 && c <= 0xDF) {
      if (!cont(p + 1)) return false;
      p += 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
      if (!cont(p + 1, lo, hi) || !cont(p + 2)) return false;
      p += 3;
    } else if (c >= 0xF0 && c <= 0xF4) {
      const unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
      if (!cont(p + 1, lo, hi) || !cont(p + 2) || !cont(p + 3)) return false;
      p += 4;
    } else {
      return false;  // a continuation byte first, C0/C1 (overlong) or F5..FF
    }
  }
  return true;
}

namespace {

// Whether every key and string in `doc` is valid UTF-8, without building paths: the
// common case, so the walk that names the place runs only when something is wrong.
bool all_utf8(const json& doc) {
  std::vector<const json*> stack{&doc};
  while (!stack.empty()) {
    const json* v = stack.back();
    stack.pop_back();
    if (v->is_string()) {
      if (!valid_utf8(v->get_ref<const std::string&>())) return false;
    } else if (v->is_object()) {
      for (auto it = v->begin(); it != v->end(); ++it) {
        if (!valid_utf8(it.key())) return false;
        stack.push_back(&it.value());
      }
    } else if (v->is_array()) {
      for (const auto& child : *v) stack.push_back(&child);
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> invalid_utf8_path(const json& doc) {
  if (all_utf8(doc)) return std::nullopt;
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
