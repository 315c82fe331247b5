// The profile tables (app/profile/profile_fields.h): one row declares a field for loading, its
// range check, the write-back and the schema.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "app/profile/device_profile_json.h"
#include "app/profile/profile_schema.h"
#include "app/scenario/scenario_load.h"

namespace nvmesim {
namespace {
using nlohmann::json;
using nlohmann::ordered_json;

std::string read_text(const std::filesystem::path& p) {
  std::stringstream s;
  s << std::ifstream(p).rdbuf();
  return s.str();
}

// What `nvmesim_profile_schema --write` would write is what ships.
TEST(Schema, ProfileTablesEntriesAreTheShippedOnes) {
  const std::string text = read_text(std::filesystem::path(default_scenarios_dir()) / "schema.json");
  const auto shipped = ordered_json::parse(text);
  EXPECT_EQ(with_generated_profile_entries(shipped).dump(2) + "\n", text)
      << "regenerate: build/app/nvmesim_profile_schema --write scenarios/schema.json";
  // And the schema compiled into the binary is that file.
  EXPECT_EQ(json::parse(text), scenario_schema());
}

// A profile type with one field more, as a field added to DeviceProfile would be.
struct Extended : DeviceProfile {
  uint32_t spare_units = 7;
};
using ExtendedField = ProfileField<Extended, CoalescingTimer, CoalescingRestart, DriveState>;

std::vector<ExtendedField> extended_table() {
  auto rows = rebase_fields<Extended>(std::span<const DeviceField>(kDeviceFields));
  ExtendedField extra;
  extra.key = "spare_units";
  extra.member = &Extended::spare_units;
  extra.min = 1;
  extra.max = 64;
  extra.doc = "units held in reserve";
  rows.push_back(extra);
  return rows;
}

json profile_with(const std::string& key, json value) {
  json p = {{"name", "x"},
            {"read", {{"dist", "constant"}, {"mean_ns", 1000}}},
            {"write", {{"dist", "constant"}, {"mean_ns", 2000}}}};
  p[key] = std::move(value);
  return p;
}

TEST(ProfileFields, ARowAddedToTheTableIsLoadedCheckedWrittenBackAndInTheSchema) {
  const auto rows = extended_table();
  const std::span<const ExtendedField> table(rows);
  // Loading.
  std::optional<InputError> err;
  Extended e = read_device_with(profile_with("spare_units", 9), "/p", "", err, table);
  ASSERT_FALSE(err) << err->str();
  EXPECT_EQ(e.spare_units, 9u);
  EXPECT_EQ(e.units, DeviceProfile{}.units);  // the other rows as before
  e = read_device_with(profile_with("units", 12), "/p", "", err, table);
  ASSERT_FALSE(err);
  EXPECT_EQ(e.spare_units, 7u);
  EXPECT_EQ(e.units, 12u);
  // The range check, naming the JSON path.
  read_device_with(profile_with("spare_units", 65), "/drives/0/profile", "", err, table);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->str(), "/drives/0/profile/spare_units: must be <= 64, got 65");
  // The shipped table does not know the key.
  err.reset();
  read_device(profile_with("spare_units", 9), "/p", "", err);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->path, "/p/spare_units");
  // Writing back.
  e.spare_units = 11;
  const json written = device_to_json_with(e, table);
  EXPECT_EQ(written["spare_units"], 11);
  err.reset();
  EXPECT_EQ(read_device_with(written, "/p", "", err, table).spare_units, 11u);
  EXPECT_FALSE(err);
  // The schema: its entry, and the shipped schema regenerated with this table gains it.
  EXPECT_EQ(profile_field_schema(rows.back()),
            ordered_json::parse(R"({"type": "integer", "minimum": 1, "maximum": 64,
                                    "description": "units held in reserve"})"));
  ordered_json schema = ordered_json::parse(read_text(std::filesystem::path(default_scenarios_dir()) / "schema.json"));
  set_profile_properties(device_profile_properties(schema), table, kDeviceHandWritten);
  EXPECT_EQ(device_profile_properties(schema)["spare_units"]["maximum"], 64);
}

TEST(ProfileFields, ZeroOrAMinimumIsCheckedWithItsMessage) {
  std::optional<InputError> err;
  read_device(profile_with("iops_max", 0.5), "/d", "", err);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->str(), "/d/iops_max: must be 0 (no ceiling) or >= 1, got 0.5");
  err.reset();
  EXPECT_EQ(read_device(profile_with("link_bytes_per_s", 0), "/d", "", err).link_bytes_per_s, 0.0);
  EXPECT_FALSE(err);
  read_device(profile_with("coalescing_timer", "sometimes"), "/d", "", err);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->str(), "/d/coalescing_timer: must be one of per_vector, controller, got \"sometimes\"");
}

// Every shipped drive profile: written back and read again, the same profile.
TEST(ProfileFields, ShippedDriveProfilesRoundTrip) {
  const auto dir = std::filesystem::path(default_scenarios_dir()) / "profiles";
  int drives = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const json doc = json::parse(read_text(entry.path()));
    if (!doc.contains("read")) continue;  // a host profile
    ++drives;
    std::optional<InputError> err;
    const DeviceProfile d = read_device(doc, "/p", dir.string(), err);
    ASSERT_FALSE(err) << entry.path() << ": " << err->str();
    const json once = device_to_json(d);
    const json twice = device_to_json(read_device(once, "/p", dir.string(), err));
    ASSERT_FALSE(err) << err->str();
    EXPECT_EQ(once, twice) << entry.path();
  }
  EXPECT_GE(drives, 4);
}

}  // namespace
}  // namespace nvmesim
