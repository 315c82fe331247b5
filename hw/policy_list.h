// The policies the hw runner can run, as one variant: the runner is generic over the
// hook shape of policies/api/policy.h and instantiates itself for each alternative.
// TODO(switch): replace with policy::AnyQueuePolicy / make_queue_policy from
// policies/registry.h once that header is in the tree for good.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "policies/api/policy.h"
#include "policies/coalesce.h"
#include "policies/irq.h"
#include "policies/poll.h"
#include "policies/threaded.h"
#include "policies/watermark.h"

namespace nvmesim::hw {

using HwPolicy = std::variant<policy::IrqPolicy, policy::PollPolicy, policy::ThreadedPolicy,
                              policy::CoalescePolicy, policy::WatermarkPolicy>;

// Validates parameters (declared names, ranges, the policy's own check) and builds the
// policy; on failure returns nullopt and sets *error.
std::optional<HwPolicy> make_hw_policy(std::string_view name, const policy::ParamMap& params,
                                       uint32_t queue_depth, std::string* error);
std::string hw_policy_names();

}  // namespace nvmesim::hw
