// Reading one JSON object with validation: every value is checked for type and range and
// a failure names its JSON pointer. The first error wins; later reads become no-ops.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "app/input/checked_number.h"
#include "app/input/input_error.h"
#include "vocab/time.h"

namespace nvmesim {

class JsonReader {
 public:
  JsonReader(const nlohmann::json& obj, std::string path, std::optional<InputError>& err);

  bool ok() const { return !err_->has_value(); }
  const std::string& path() const { return path_; }
  // The JSON pointer of `key` in this object ("~" and "/" escaped as RFC 6901 says).
  std::string child(const std::string& key) const;
  bool has(const std::string& key) const { return obj_->is_object() && obj_->contains(key); }
  const nlohmann::json& at(const std::string& key) const { return (*obj_)[key]; }
  // Records an error at `key` (at this object itself when `key` is empty).
  void fail(const std::string& key, const std::string& message);

  // Integers (an integral float such as 1e3 is accepted) range-checked before conversion.
  int64_t integer(const std::string& key, int64_t def, int64_t min, int64_t max);
  uint64_t u64(const std::string& key, uint64_t def, uint64_t min, uint64_t max);
  uint32_t u32(const std::string& key, uint32_t def, uint32_t min, uint32_t max) {
    return static_cast<uint32_t>(integer(key, def, min, max));
  }
  double number(const std::string& key, double def, double min, double max);
  bool boolean(const std::string& key, bool def);
  std::string string(const std::string& key, const std::string& def);
  // A duration given in the unit the key names: "<key>" holds an integer count of `unit`.
  Duration duration(const std::string& key, Duration def, Duration min, Duration max, Duration unit);
  // fio-style size: integer bytes or a string with k/m/g suffix (powers of 1024).
  uint32_t size_bytes(const std::string& key, uint32_t def, uint32_t min, uint32_t max);
  // One of `choices` (a string).
  std::string choice(const std::string& key, const std::string& def, std::initializer_list<const char*> choices);

  // Reports the first key that was never read (a typo, or an option we do not support).
  void reject_unknown(std::initializer_list<const char*> also_allowed = {});

 private:
  // The integer at `key` if present, integral and within [min, max]; else nullopt, with
  // the error recorded unless the key is absent.
  std::optional<WideInt> bounded_integer(const std::string& key, WideInt min, WideInt max);
  const nlohmann::json* obj_;
  std::string path_;
  std::optional<InputError>* err_;
  std::set<std::string> seen_;
};

// A JSON pointer token: "~" -> "~0", "/" -> "~1" (RFC 6901).
std::string json_pointer_token(const std::string& key);

// Parses fio-style sizes ("4k", "1m", "512") and durations ("10s", "100ms", "250us");
// nullopt for malformed text and for values past 2^62 bytes or ns (no wrap-around).
std::optional<uint64_t> parse_size(const std::string& s);
std::optional<int64_t> parse_duration_ns(const std::string& s, int64_t default_unit_ns);

}  // namespace nvmesim
