// Policy parameter values by name, as a scenario gives them and as results report them.
// Plain data, here rather than in policies/api/params.h so that the scenario types
// (vocab/scenario.h) need nothing of the policy API; params.h turns it into a policy's
// typed Params.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace nvmesim::policy {

using ParamMap = std::map<std::string, int64_t, std::less<>>;

}  // namespace nvmesim::policy
