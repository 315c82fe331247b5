#include "hw/policy_list.h"

#include <utility>

namespace nvmesim::hw {

namespace {

template <class P>
bool try_make(std::string_view name, const policy::ParamMap& params, uint32_t depth,
              std::optional<HwPolicy>* out, std::string* error) {
  if (P::kName != name) return false;
  for (const auto& [key, value] : params) {
    const policy::ParamSpec* spec = nullptr;
    for (const auto& s : P::kParams)
      if (s.name == key) spec = &s;
    if (!spec) {
      *error = std::string(name) + ": unknown parameter \"" + key + "\"";
      return true;
    }
    if (value < spec->min || value > spec->max) {
      *error = std::string(name) + ": " + key + " = " + std::to_string(value) + " is outside [" +
               std::to_string(spec->min) + ", " + std::to_string(spec->max) + "]";
      return true;
    }
  }
  if (std::string e = P::check(params, depth); !e.empty()) {
    *error = e;
    return true;
  }
  out->emplace(std::in_place_type<P>, params);
  return true;
}

template <class... Ps>
bool make_any(std::variant<Ps...>*, std::string_view name, const policy::ParamMap& params,
              uint32_t depth, std::optional<HwPolicy>* out, std::string* error) {
  return (try_make<Ps>(name, params, depth, out, error) || ...);
}

template <class... Ps>
std::string names(std::variant<Ps...>*) {
  std::string s;
  ((s += (s.empty() ? "" : ", ") + std::string(Ps::kName)), ...);
  return s;
}

}  // namespace

std::optional<HwPolicy> make_hw_policy(std::string_view name, const policy::ParamMap& params,
                                       uint32_t queue_depth, std::string* error) {
  std::optional<HwPolicy> out;
  if (!make_any(static_cast<HwPolicy*>(nullptr), name, params, queue_depth, &out, error))
    *error = "policy \"" + std::string(name) + "\" is not available on hardware (have: " +
             hw_policy_names() + ")";
  return out;
}

std::string hw_policy_names() { return names(static_cast<HwPolicy*>(nullptr)); }

}  // namespace nvmesim::hw
