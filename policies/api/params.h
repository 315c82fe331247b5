// A policy's parameters, declared once: a plain struct whose fields the policy reads
// (a misspelt name does not compile), and a table that gives each field its name, legal
// range, unit and meaning. Defaults are the struct's member initialisers. The registry's
// one validator (validate_policy) and the reports work from the table; the scenario
// carries the values as a name -> integer map (ParamMap), which params_from_map turns
// into the struct.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "vocab/param_map.h"

namespace nvmesim::policy {

// One parameter, for documentation and validation (default from the struct).
struct ParamSpec {
  std::string_view name;
  int64_t default_value;
  int64_t min;
  int64_t max;
  std::string_view unit;
  std::string_view doc;
};

// A parameter error that names its parameter, so a loader can point at its exact JSON
// path. `param` empty: the error is about the policy itself (e.g. an unknown name).
struct ParamError {
  std::string param;
  std::string message;
  bool operator==(const ParamError&) const = default;
};

// One field of a parameter struct S.
template <class S>
struct ParamField {
  std::string_view name;
  int64_t S::*member;
  int64_t min;
  int64_t max;
  std::string_view unit;
  std::string_view doc;
};

// A parameter struct: default-constructible, with `static constexpr std::array<
// ParamField<S>, N> kFields` listing every field once.
template <class S>
concept ParamStruct = std::default_initializable<S> && requires {
  { S::kFields.size() } -> std::convertible_to<std::size_t>;
  { S::kFields[0] };  // operator[] exists even for N = 0 (never evaluated)
};

// For policies without parameters.
struct NoParams {
  static constexpr std::array<ParamField<NoParams>, 0> kFields{};
};

// The documentation rows of S, defaults taken from S{}.
template <ParamStruct S>
constexpr auto param_specs() {
  std::array<ParamSpec, S::kFields.size()> out{};
  const S defaults{};
  for (std::size_t i = 0; i < S::kFields.size(); ++i) {
    const auto& f = S::kFields[i];
    out[i] = ParamSpec{f.name, defaults.*(f.member), f.min, f.max, f.unit, f.doc};
  }
  return out;
}

// The documentation rows of S, with static storage (for spans and reports).
template <ParamStruct S>
inline constexpr auto kParamSpecs = param_specs<S>();

// Names and ranges: every given name must be declared and every value in range; the
// rest keep their defaults. `policy` prefixes the messages.
template <ParamStruct S>
std::variant<S, ParamError> params_from_map(std::string_view policy, const ParamMap& given) {
  S out{};
  for (const auto& [key, value] : given) {
    const ParamField<S>* field = nullptr;
    for (const auto& f : S::kFields)
      if (f.name == key) field = &f;
    if (!field) {
      std::string known;
      for (const auto& f : S::kFields) known += (known.empty() ? "" : ", ") + std::string(f.name);
      return ParamError{key, std::string(policy) + ": unknown parameter \"" + key + "\" (" +
                                 (known.empty() ? std::string("it has none") : "known: " + known) + ")"};
    }
    if (value < field->min || value > field->max)
      return ParamError{key, std::string(policy) + ": " + key + " = " + std::to_string(value) +
                                 " is outside [" + std::to_string(field->min) + ", " +
                                 std::to_string(field->max) + "]"};
    out.*(field->member) = value;
  }
  return out;
}

// Every field with its value, for the resolved scenario and the results.
template <ParamStruct S>
ParamMap params_to_map(const S& s) {
  ParamMap out;
  for (const auto& f : S::kFields) out[std::string(f.name)] = s.*(f.member);
  return out;
}

}  // namespace nvmesim::policy
