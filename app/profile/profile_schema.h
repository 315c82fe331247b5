// The scenario schema's entries of the profile tables' fields (app/profile/profile_fields.h): the
// entries of scenarios/schema.json for those fields are generated, not written by hand.
// Regenerate after changing a table:
//   cmake --build build --target nvmesim_profile_schema
//   build/app/nvmesim_profile_schema --write scenarios/schema.json
// (core_tests' Schema.ProfileTablesEntriesAreTheShippedOnes fails until the file is.)
// The profile's other keys (name, comment, sources, ranges, file, the nested read/write
// distributions) stay as written in the file.
#pragma once

#include <initializer_list>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "app/profile/profile_fields.h"

namespace nvmesim {

// Sets each row's entry in `props` (a schema's "properties" of the profile object), in
// place where the key is there, else appended, and removes every key that is neither a
// row nor one of `hand_written`.
template <class P, class... Enums>
void set_profile_properties(nlohmann::ordered_json& props, std::span<const ProfileField<P, Enums...>> fields,
                            std::initializer_list<const char*> hand_written) {
  std::vector<std::string> stale;
  for (const auto& [key, v] : props.items()) {
    bool known = false;
    for (const char* h : hand_written) known = known || key == h;
    for (const auto& f : fields) known = known || key == f.key;
    if (!known) stale.push_back(key);
  }
  for (const auto& key : stale) props.erase(key);
  for (const auto& f : fields) props[f.key] = profile_field_schema(f);
}

// The drive profile's "properties" in a scenario schema.
nlohmann::ordered_json& device_profile_properties(nlohmann::ordered_json& schema);
// The keys of a drive profile that are not rows of its table.
inline constexpr std::initializer_list<const char*> kDeviceHandWritten = {"name", "comment", "sources", "ranges",
                                                                          "file", "read",    "write"};

// The host profile's "properties" in a scenario schema, and its keys not in its table.
nlohmann::ordered_json& host_profile_properties(nlohmann::ordered_json& schema);
inline constexpr std::initializer_list<const char*> kHostHandWritten = {
    "name", "comment", "sources", "ranges", "file", "cores", "libaio", "io_uring",
    "platform", "softirq_limits", "irq_poll", "irq_effective_cpu", "completion_ipi"};

// `schema` (scenarios/schema.json) with its generated entries as the shipped tables make them.
nlohmann::ordered_json with_generated_profile_entries(nlohmann::ordered_json schema);

}  // namespace nvmesim
