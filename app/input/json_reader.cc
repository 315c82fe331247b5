#include "app/input/json_reader.h"

#include <cctype>
#include <cmath>

#include "app/input/checked_number.h"
#include "app/input/json_text.h"

namespace nvmesim {

JsonReader::JsonReader(const nlohmann::json& obj, std::string path, std::optional<InputError>& err)
    : obj_(&obj), path_(std::move(path)), err_(&err) {
  if (!obj.is_object() && ok()) *err_ = InputError{path_.empty() ? "/" : path_, "must be an object"};
}

std::string json_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string JsonReader::child(const std::string& key) const { return path_ + "/" + json_pointer_token(key); }

void JsonReader::fail(const std::string& key, const std::string& message) {
  if (ok()) *err_ = InputError{key.empty() ? (path_.empty() ? "/" : path_) : child(key), message};
}

std::optional<WideInt> JsonReader::bounded_integer(const std::string& key, WideInt min, WideInt max) {
  seen_.insert(key);
  if (!ok() || !has(key)) return std::nullopt;
  const auto& v = at(key);
  std::optional<WideInt> x = json_integral(v);
  if (!x) {
    fail(key, "must be an integer, got " + json_excerpt(v));
    return std::nullopt;
  }
  // The value as written: an integral float keeps its own spelling (1e+19).
  std::string got = v.is_number_float() ? v.dump() : wide_to_string(*x);
  if (*x < min) fail(key, "must be >= " + wide_to_string(min) + ", got " + got);
  else if (*x > max) fail(key, "must be <= " + wide_to_string(max) + ", got " + got);
  else return x;
  return std::nullopt;
}

int64_t JsonReader::integer(const std::string& key, int64_t def, int64_t min, int64_t max) {
  std::optional<WideInt> x = bounded_integer(key, min, max);
  return x ? static_cast<int64_t>(*x) : def;
}

uint64_t JsonReader::u64(const std::string& key, uint64_t def, uint64_t min, uint64_t max) {
  std::optional<WideInt> x = bounded_integer(key, static_cast<WideInt>(min), static_cast<WideInt>(max));
  return x ? static_cast<uint64_t>(*x) : def;
}

double JsonReader::number(const std::string& key, double def, double min, double max) {
  seen_.insert(key);
  if (!ok() || !has(key)) return def;
  const auto& v = at(key);
  if (!v.is_number()) {
    fail(key, "must be a number, got " + json_excerpt(v));
    return def;
  }
  double x = v.get<double>();
  if (!(x >= min)) fail(key, "must be >= " + nlohmann::json(min).dump() + ", got " + v.dump());
  else if (!(x <= max)) fail(key, "must be <= " + nlohmann::json(max).dump() + ", got " + v.dump());
  return x;
}

bool JsonReader::boolean(const std::string& key, bool def) {
  seen_.insert(key);
  if (!ok() || !has(key)) return def;
  const auto& v = at(key);
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1)) return v.get<int64_t>() == 1;
  fail(key, "must be true or false, got " + json_excerpt(v));
  return def;
}

std::string JsonReader::string(const std::string& key, const std::string& def) {
  seen_.insert(key);
  if (!ok() || !has(key)) return def;
  const auto& v = at(key);
  if (!v.is_string()) {
    fail(key, "must be a string, got " + json_excerpt(v));
    return def;
  }
  return v.get<std::string>();
}

Duration JsonReader::duration(const std::string& key, Duration def, Duration min, Duration max, Duration unit) {
  int64_t u = unit.count_ns();
  int64_t v = integer(key, def.count_ns() / u, min.count_ns() / u, max.count_ns() / u);
  return Duration::ns(v * u);
}

uint32_t JsonReader::size_bytes(const std::string& key, uint32_t def, uint32_t min, uint32_t max) {
  seen_.insert(key);
  if (!ok() || !has(key)) return def;
  const auto& v = at(key);
  std::optional<uint64_t> x;
  if (v.is_number()) x = in_range_u64(json_integral(v), 0, UINT64_MAX);
  else if (v.is_string()) x = parse_size(v.get<std::string>());
  if (!x) {
    fail(key, "must be a size in bytes (e.g. 4096 or \"4k\") up to 2^62, got " + json_excerpt(v));
    return def;
  }
  if (*x < min) fail(key, "must be >= " + std::to_string(min) + " bytes, got " + std::to_string(*x));
  else if (*x > max) fail(key, "must be <= " + std::to_string(max) + " bytes, got " + std::to_string(*x));
  else return static_cast<uint32_t>(*x);
  return def;
}

std::string JsonReader::choice(const std::string& key, const std::string& def,
                               std::initializer_list<const char*> choices) {
  std::string s = string(key, def);
  if (!ok()) return def;
  for (const char* c : choices)
    if (s == c) return s;
  std::string list;
  for (const char* c : choices) list += (list.empty() ? "" : ", ") + std::string(c);
  fail(key, "must be one of " + list + ", got \"" + s + "\"");
  return def;
}

void JsonReader::reject_unknown(std::initializer_list<const char*> also_allowed) {
  if (!ok()) return;
  for (const char* a : also_allowed) seen_.insert(a);
  for (const auto& [k, v] : obj_->items()) {
    if (!seen_.count(k)) {
      // Not fail(): an empty key names the key "" (pointer ".../"), not this object.
      *err_ = InputError{child(k), k.empty() ? "unknown key \"\" (an empty name)" : "unknown key"};
      return;
    }
  }
}

namespace {

// Leading decimal digits of `s` (at least one) and the rest, or nullopt past 2^62.
std::optional<std::pair<uint64_t, std::string>> digits_and_suffix(const std::string& s) {
  std::size_t i = 0;
  uint64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    if (v > (uint64_t{1} << 62)) return std::nullopt;
    ++i;
  }
  if (i == 0) return std::nullopt;
  return std::make_pair(v, s.substr(i));
}

std::optional<uint64_t> scaled(uint64_t v, uint64_t unit) {
  auto r = checked_mul(v, unit);
  if (!r || *r > (uint64_t{1} << 62)) return std::nullopt;
  return r;
}

}  // namespace

std::optional<uint64_t> parse_size(const std::string& s) {
  auto ds = digits_and_suffix(s);
  if (!ds) return std::nullopt;
  auto [v, suf] = *ds;
  for (auto& c : suf) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (suf.empty() || suf == "b") return v;
  if (suf == "k" || suf == "kb" || suf == "kib") return scaled(v, uint64_t{1} << 10);
  if (suf == "m" || suf == "mb" || suf == "mib") return scaled(v, uint64_t{1} << 20);
  if (suf == "g" || suf == "gb" || suf == "gib") return scaled(v, uint64_t{1} << 30);
  return std::nullopt;
}

std::optional<int64_t> parse_duration_ns(const std::string& s, int64_t default_unit_ns) {
  auto ds = digits_and_suffix(s);
  if (!ds) return std::nullopt;
  auto [v, suf] = *ds;
  uint64_t unit = suf.empty() ? static_cast<uint64_t>(default_unit_ns)
                : suf == "ns" ? 1
                : suf == "us" || suf == "usec" ? 1000
                : suf == "ms" || suf == "msec" ? 1000000
                : suf == "s" || suf == "sec" ? 1000000000
                : suf == "m" || suf == "min" ? 60000000000 : 0;
  if (unit == 0) return std::nullopt;
  auto ns = scaled(v, unit);
  if (!ns) return std::nullopt;
  return static_cast<int64_t>(*ns);
}

}  // namespace nvmesim
