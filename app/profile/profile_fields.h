// One table per profile: each row declares a profile field once -- its JSON key, the
// member it fills, its unit, its valid range and a one-line doc -- and every use works
// from the rows: loading with the range check and errors naming the JSON path
// (read_profile_fields), writing back into the resolved scenario (write_profile_fields)
// and the scenario schema's entries (profile_field_schema; app/profile/profile_schema.h keeps
// scenarios/schema.json equal to it). A field added to a table appears in all of them.
//
// A row's kind follows from its member's type: uint32_t an integer count, double a real
// number, bool true or false, Duration an integer count of `unit` ("ns" or "us"), an enum one of `choices`.
// The range is the one the loader accepts (what the model can run); the physical range a
// measured profile's value is believed to lie in is the profile file's own "ranges"
// (app/profile/profile_ranges.h), per profile, not per field.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/input/json_reader.h"
#include "app/input/json_text.h"
#include "vocab/time.h"

namespace nvmesim {

inline constexpr Duration kMaxCost = Duration::ms(100);  // no single CPU cost is that long
inline constexpr Duration kMaxLatency = Duration::s(10);
inline constexpr double kMaxLatencyNs = static_cast<double>(kMaxLatency.count_ns());
inline constexpr double kMaxCostNs = static_cast<double>(kMaxCost.count_ns());

// When the resolved scenario carries a field: always, or only when it differs from the
// profile type's default (fields added later, so results of profiles without them stay
// as they were).
enum class WriteBack : uint8_t { always, unless_default };

template <class P, class... Enums>
struct ProfileField {
  using Member = std::variant<uint32_t P::*, double P::*, Duration P::*, bool P::*, Enums P::*...>;
  const char* key = "";
  Member member;
  const char* unit = "";  // JSON unit: "ns"/"us" for a Duration, else documentation
  double min = 0;         // accepted range, in the JSON's unit (unused for a choice)
  double max = 0;
  double min_nonzero = 0;  // > 0: 0 means "no ceiling", any other value is at least this
  std::span<const char* const> choices = {};  // an enum's words, in its order
  WriteBack write = WriteBack::always;
  const char* doc = "";
};

namespace profile_fields_detail {

inline int64_t unit_ns(const char* unit) { return std::string(unit) == "us" ? 1000 : 1; }

// Whole numbers as JSON integers (the schema says 1000000000, not 1000000000.0).
inline nlohmann::json number(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v))) return static_cast<int64_t>(v);
  return v;
}

inline std::string number_text(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

}  // namespace profile_fields_detail

// A choice among `names` (an enum's words, in its order) as that enum.
template <class Enum>
Enum read_choice(JsonReader& r, const std::string& key, Enum def, std::span<const char* const> names) {
  std::string got = r.string(key, names[static_cast<std::size_t>(def)]);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (got == names[i]) return static_cast<Enum>(i);
  if (r.ok()) {
    std::string list;
    for (const char* c : names) list += (list.empty() ? "" : ", ") + std::string(c);
    r.fail(key, "must be one of " + list + ", got \"" + got + "\"");
  }
  return def;
}

// Reads every row's key of `r`'s object into `p`, in the table's order; an absent key
// keeps the member's value. The first error wins (JsonReader).
template <class P, class... Enums>
void read_profile_fields(JsonReader& r, P& p, std::span<const ProfileField<P, Enums...>> fields) {
  using namespace profile_fields_detail;
  for (const auto& f : fields) {
    std::visit(
        [&](auto m) {
          using T = std::remove_cvref_t<decltype(p.*m)>;
          T& v = p.*m;
          if constexpr (std::is_same_v<T, uint32_t>) {
            v = r.u32(f.key, v, static_cast<uint32_t>(f.min), static_cast<uint32_t>(f.max));
          } else if constexpr (std::is_same_v<T, double>) {
            v = r.number(f.key, v, f.min, f.max);
            if (r.ok() && f.min_nonzero > 0 && v > 0 && v < f.min_nonzero)
              r.fail(f.key, "must be 0 (no ceiling) or >= " + number_text(f.min_nonzero) + ", got " +
                                json_excerpt(r.at(f.key)));
          } else if constexpr (std::is_same_v<T, bool>) {
            v = r.boolean(f.key, v);
          } else if constexpr (std::is_same_v<T, Duration>) {
            const int64_t u = unit_ns(f.unit);
            v = r.duration(f.key, v, Duration::ns(static_cast<int64_t>(f.min) * u),
                           Duration::ns(static_cast<int64_t>(f.max) * u), Duration::ns(u));
          } else {
            static_assert(std::is_enum_v<T>);
            v = read_choice(r, f.key, v, f.choices);
          }
        },
        f.member);
  }
}

// Writes every row of `p` into `out` under its key (rows WriteBack::unless_default only
// when the value differs from P{}'s).
template <class P, class... Enums>
void write_profile_fields(nlohmann::json& out, const P& p, std::span<const ProfileField<P, Enums...>> fields) {
  static const P defaults{};
  for (const auto& f : fields) {
    std::visit(
        [&](auto m) {
          const auto& v = p.*m;
          if (f.write == WriteBack::unless_default && v == defaults.*m) return;
          using T = std::remove_cvref_t<decltype(v)>;
          if constexpr (std::is_same_v<T, Duration>) out[f.key] = v.count_ns() / profile_fields_detail::unit_ns(f.unit);
          else if constexpr (std::is_enum_v<T>) out[f.key] = f.choices[static_cast<std::size_t>(v)];
          else out[f.key] = v;
        },
        f.member);
  }
}

// The JSON Schema entry of one row.
template <class P, class... Enums>
nlohmann::ordered_json profile_field_schema(const ProfileField<P, Enums...>& f) {
  using profile_fields_detail::number;
  nlohmann::ordered_json e = nlohmann::ordered_json::object();
  std::visit(
      [&](auto m) {
        using T = std::remove_cvref_t<decltype(std::declval<P&>().*m)>;
        if constexpr (std::is_enum_v<T>) {
          e["enum"] = nlohmann::ordered_json::array();
          for (const char* c : f.choices) e["enum"].push_back(c);
        } else if constexpr (std::is_same_v<T, bool>) {
          e["type"] = "boolean";
        } else if constexpr (std::is_same_v<T, double>) {
          e["type"] = "number";
          if (f.min_nonzero > 0) {
            if (*f.doc) e["description"] = f.doc;
            e["anyOf"] = {{{"const", 0}}, {{"minimum", number(f.min_nonzero)}, {"maximum", number(f.max)}}};
            return;
          }
          e["minimum"] = number(f.min);
          e["maximum"] = number(f.max);
        } else {
          e["type"] = "integer";
          e["minimum"] = number(f.min);
          e["maximum"] = number(f.max);
        }
        if (*f.doc) e["description"] = f.doc;
      },
      f.member);
  return e;
}

// The same rows for a profile type derived from P (a test's profile with one more field).
template <class D, class P, class... Enums>
std::vector<ProfileField<D, Enums...>> rebase_fields(std::span<const ProfileField<P, Enums...>> fields) {
  static_assert(std::is_base_of_v<P, D>);
  std::vector<ProfileField<D, Enums...>> out;
  for (const auto& f : fields) {
    ProfileField<D, Enums...> g;
    g.key = f.key;
    g.member = std::visit([](auto m) -> typename ProfileField<D, Enums...>::Member { return m; }, f.member);
    g.unit = f.unit;
    g.min = f.min;
    g.max = f.max;
    g.min_nonzero = f.min_nonzero;
    g.choices = f.choices;
    g.write = f.write;
    g.doc = f.doc;
    out.push_back(g);
  }
  return out;
}

}  // namespace nvmesim
