#include "app/json_reader.h"

#include <cctype>
#include <cmath>

namespace nvmesim {

JsonReader::JsonReader(const nlohmann::json& obj, std::string path, std::optional<InputError>& err)
    : obj_(&obj), path_(std::move(path)), err_(&err) {
  if (!obj.is_object() && ok()) *err_ = InputError{path_.empty() ? "/" : path_, "must be an object"};
}

void JsonReader::fail(const std::string& key, const std::string& message) {
  if (ok()) *err_ = InputError{key.empty() ? path_ : child(key), message};
}

int64_t JsonReader::integer(const std::string& key, int64_t def, int64_t min, int64_t max) {
  seen_.insert(key);
  if (!ok() || !has(key)) return def;
  const auto& v = at(key);
  if (!v.is_number_integer() && !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>())) {
    fail(key, "must be an integer, got " + v.dump());
    return def;
  }
  int64_t x = v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX ? INT64_MAX : v.get<int64_t>();
  if (x < min) fail(key, "must be >= " + std::to_string(min) + ", got " + std::to_string(x));
  else if (x > max) fail(key, "must be <= " + std::to_string(max) + ", got " + std::to_string(x));
  return x;
}

double JsonReader::number(const std::string& key, double def, double min, double max) {
  seen_.insert(key);
  if (!ok() || !has(key)) return def;
  const auto& v = at(key);
  if (!v.is_number()) {
    fail(key, "must be a number, got " + v.dump());
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
  fail(key, "must be true or false, got " + v.dump());
  return def;
}

std::string JsonReader::string(const std::string& key, const std::string& def) {
  seen_.insert(key);
  if (!ok() || !has(key)) return def;
  const auto& v = at(key);
  if (!v.is_string()) {
    fail(key, "must be a string, got " + v.dump());
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
  if (v.is_number_integer() && v.get<int64_t>() >= 0) x = v.get<uint64_t>();
  else if (v.is_string()) x = parse_size(v.get<std::string>());
  if (!x) {
    fail(key, "must be a size in bytes (e.g. 4096 or \"4k\"), got " + v.dump());
    return def;
  }
  if (*x < min) fail(key, "must be >= " + std::to_string(min) + " bytes, got " + std::to_string(*x));
  else if (*x > max) fail(key, "must be <= " + std::to_string(max) + " bytes, got " + std::to_string(*x));
  return static_cast<uint32_t>(*x);
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
      fail(k, "unknown key");
      return;
    }
  }
}

std::optional<uint64_t> parse_size(const std::string& s) {
  if (s.empty()) return std::nullopt;
  std::size_t i = 0;
  uint64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    if (v > (uint64_t{1} << 40)) return std::nullopt;
    ++i;
  }
  if (i == 0) return std::nullopt;
  std::string suf = s.substr(i);
  for (auto& c : suf) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (suf.empty() || suf == "b") return v;
  if (suf == "k" || suf == "kb" || suf == "kib") return v << 10;
  if (suf == "m" || suf == "mb" || suf == "mib") return v << 20;
  if (suf == "g" || suf == "gb" || suf == "gib") return v << 30;
  return std::nullopt;
}

std::optional<int64_t> parse_duration_ns(const std::string& s, int64_t default_unit_ns) {
  std::size_t i = 0;
  int64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    v = v * 10 + (s[i] - '0');
    if (v > (int64_t{1} << 40)) return std::nullopt;
    ++i;
  }
  if (i == 0) return std::nullopt;
  std::string suf = s.substr(i);
  if (suf.empty()) return v * default_unit_ns;
  if (suf == "ns") return v;
  if (suf == "us" || suf == "usec") return v * 1000;
  if (suf == "ms" || suf == "msec") return v * 1000000;
  if (suf == "s" || suf == "sec") return v * 1000000000;
  if (suf == "m" || suf == "min") return v * 60000000000;
  return std::nullopt;
}

}  // namespace nvmesim
