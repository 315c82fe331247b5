// A drive profile from and to JSON, driven by its table (app/profile/device_profile_fields.h).
// The templates take the table, so a test can run the loader, the write-back and the
// schema over a table with one more row (of a profile type derived from DeviceProfile).
#pragma once

#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "app/input/input_error.h"
#include "app/input/json_reader.h"
#include "app/profile/device_profile_fields.h"

namespace nvmesim {

// The read and write service-time distributions ("read", "write": both required).
void read_device_services(JsonReader& r, DeviceProfile& d, const std::string& base_dir, std::optional<InputError>& err);
nlohmann::json service_to_json(const ServiceSpec& s);
// The write path's fields together (DeviceProfile::write_path): what one row's range cannot say.
void check_write_path(JsonReader& r, const DeviceProfile& d);
// completion_round_max caps rounds: it needs completion_round_ns.
void check_completion_rounds(JsonReader& r, const DeviceProfile& d);

// The profile object at JSON pointer `path`; relative CDF files resolve against base_dir.
template <class P, class... Enums>
P read_device_with(const nlohmann::json& j, const std::string& path, const std::string& base_dir,
                   std::optional<InputError>& err, std::span<const ProfileField<P, Enums...>> fields) {
  P d;
  JsonReader r(j, path, err);
  d.name = r.string("name", "device");
  read_profile_fields(r, d, fields);
  if (r.ok()) check_write_path(r, d);
  if (r.ok()) check_completion_rounds(r, d);
  if (!r.ok()) return d;
  read_device_services(r, d, base_dir, err);
  if (err) return d;
  r.reject_unknown({"read", "write", "comment", "sources", "ranges", "file"});
  return d;
}

template <class P, class... Enums>
nlohmann::json device_to_json_with(const P& d, std::span<const ProfileField<P, Enums...>> fields) {
  nlohmann::json j = {{"name", d.name}, {"read", service_to_json(d.read)}, {"write", service_to_json(d.write)}};
  write_profile_fields(j, d, fields);
  return j;
}

inline DeviceProfile read_device(const nlohmann::json& j, const std::string& path, const std::string& base_dir,
                                 std::optional<InputError>& err) {
  return read_device_with(j, path, base_dir, err, std::span<const DeviceField>(kDeviceFields));
}
inline nlohmann::json device_to_json(const DeviceProfile& d) {
  return device_to_json_with(d, std::span<const DeviceField>(kDeviceFields));
}

}  // namespace nvmesim
