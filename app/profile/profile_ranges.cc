#include "app/profile/profile_ranges.h"

#include <cstdio>

#include "app/input/json_reader.h"
#include "app/input/json_text.h"

namespace nvmesim {
namespace {
using nlohmann::json;

// The member that RFC 6901 pointer `ptr` names inside `obj`, following objects only (a
// profile's numbers are members, never array elements); null if there is none. Parsed by
// hand, as a malformed pointer here is the user's input, not a bug.
const json* member_at(const json& obj, const std::string& ptr) {
  if (ptr.empty() || ptr[0] != '/') return nullptr;
  const json* at = &obj;
  std::size_t i = 1;
  while (true) {
    const std::size_t end = ptr.find('/', i);
    std::string token;
    for (std::size_t k = i; k < (end == std::string::npos ? ptr.size() : end); ++k) {
      if (ptr[k] != '~') {
        token += ptr[k];
        continue;
      }
      if (k + 1 >= ptr.size() || (ptr[k + 1] != '0' && ptr[k + 1] != '1')) return nullptr;
      token += ptr[k + 1] == '0' ? '~' : '/';
      ++k;
    }
    if (!at->is_object() || !at->contains(token)) return nullptr;
    at = &(*at)[token];
    if (end == std::string::npos) return at;
    i = end + 1;
  }
}

std::string number_text(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

}  // namespace

std::optional<InputError> check_profile_ranges(const json& profile, const std::string& path,
                                               std::vector<std::string>& outside) {
  if (!profile.is_object() || !profile.contains("ranges")) return std::nullopt;
  const json& ranges = profile["ranges"];
  const std::string where = path + "/ranges";
  if (!ranges.is_object())
    return InputError{where, "must be an object of [lo, hi] by the pointer of a number in this profile, e.g. "
                             "{\"/irq_entry_ns\": [400, 1200]}"};
  for (const auto& [key, range] : ranges.items()) {
    const std::string at = where + "/" + json_pointer_token(key);
    const std::string first = key.empty() ? std::string() : key.substr(1, key.find('/', 1) - 1);
    const json* value = (first == "sources" || first == "ranges" || first == "comment") ? nullptr : member_at(profile, key);
    if (value == nullptr || !value->is_number())
      return InputError{at, "\"" + key + "\" names no number of this profile (a JSON pointer such as "
                            "\"/irq_entry_ns\" or \"/read/mean_ns\")"};
    if (!range.is_array() || range.size() != 2 || !range[0].is_number() || !range[1].is_number())
      return InputError{at, "must be [lo, hi], two numbers, got " + json_excerpt(range)};
    const double lo = range[0].get<double>(), hi = range[1].get<double>();
    if (lo > hi) return InputError{at, "must be [lo, hi] with lo <= hi, got " + json_excerpt(range)};
    const double v = value->get<double>();
    if (v < lo || v > hi)
      outside.push_back(path + key + " = " + number_text(v) + " is outside the physical range its profile documents, [" +
                        number_text(lo) + ", " + number_text(hi) + "]");
  }
  return std::nullopt;
}

}  // namespace nvmesim
