// Declaring a policy's parameters once: name, default, legal range, unit and meaning.
// The scenario loader validates and reports them from this table; the policy reads the
// plain struct it fills.
#pragma once

#include <cstdint>
#include <string_view>

namespace nvmesim::policy {

struct ParamSpec {
  std::string_view name;
  int64_t default_value;
  int64_t min;
  int64_t max;
  std::string_view unit;
  std::string_view doc;
};

}  // namespace nvmesim::policy
