// A profile's documented physical ranges ("ranges": {"/irq_entry_ns": [lo, hi], ...}, keys
// are JSON pointers into the profile): checked when a scenario loads. A range that is
// malformed or names no number of its profile is an input error; a value outside its
// range is legal (a sweep may explore there) but noted, and the run's results warn.
// `nvmesim calibrate` takes the same ranges as a parameter's default bounds.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/input/input_error.h"

namespace nvmesim {

// `profile` is the profile object found at JSON pointer `path` ("/host",
// "/drives/0/profile"); notes on values outside their range are appended to `outside`.
std::optional<InputError> check_profile_ranges(const nlohmann::json& profile, const std::string& path,
                                               std::vector<std::string>& outside);

}  // namespace nvmesim
