// The host profile from JSON: its table's fields (app/profile/host_profile_fields.h), the engines
// and the interrupt-delivery mechanisms, each checked, a failure naming its JSON path.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "app/input/input_error.h"
#include "vocab/profiles.h"

namespace nvmesim {

HostProfile read_host(const nlohmann::json& j, const std::string& path, std::optional<InputError>& err);

}  // namespace nvmesim
