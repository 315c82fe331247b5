// Every completion policy by name: the one place a loader validates
// {"name": ..., "params": {...}} and a runner constructs a policy, without knowing any
// policy's type. Queue policies go into AnyQueuePolicy (std::visit to call hooks);
// policy C additionally has a per-drive monitor, CoalesceAdaptiveDrive (see
// PolicyInfo::per_drive).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "policies/api/policy.h"
#include "policies/coalesce.h"
#include "policies/coalesce_adaptive.h"
#include "policies/irq.h"
#include "policies/poll.h"
#include "policies/rate.h"
#include "policies/threaded.h"
#include "policies/watermark.h"

namespace nvmesim::policy {

using AnyQueuePolicy = std::variant<IrqPolicy, ThreadedPolicy, PollPolicy, CoalescePolicy,
                                    WatermarkPolicy, RatePolicy, CoalesceAdaptiveQueue>;

// Which queues may run the policy; the others run IrqPolicy (B0).
enum class Eligibility {
  any,               // every I/O queue
  dedicated_vector,  // I/O queues whose MSI-X vector is not shared (the controller has more
                     // than one vector) and threaded interrupts are not in use
};

struct PolicyInfo {
  std::string_view name;
  std::span<const ParamSpec> params;
  std::string (*check)(const ParamMap&, uint32_t queue_depth);  // cross-field: "" or error
  AnyQueuePolicy (*make)(const ParamMap&);                     // from validated params
  bool uses_vector;   // false: polled queues, no MSI-X vector
  bool app_polls;     // the submitting task reaps by polling (on_app_poll)
  Eligibility eligibility;
  bool per_drive;     // also run a CoalesceAdaptiveDrive monitor per drive
  // Static Feature 08h value to program for all I/O vectors before the run, or nullptr.
  Coalescing (*static_coalescing)(const ParamMap&);
};

namespace detail {
template <class P>
AnyQueuePolicy make_queue_policy(const ParamMap& p) {
  return AnyQueuePolicy(std::in_place_type<P>, p);
}
template <class P>
constexpr PolicyInfo info(Eligibility e, bool per_drive = false,
                          Coalescing (*coalescing)(const ParamMap&) = nullptr) {
  return {P::kName,  std::span<const ParamSpec>(P::kParams), &P::check, &make_queue_policy<P>,
          P::kUsesVector, P::kAppPolls, e, per_drive, coalescing};
}
}  // namespace detail

inline constexpr std::array<PolicyInfo, 7> kPolicies{{
    detail::info<IrqPolicy>(Eligibility::any),
    detail::info<ThreadedPolicy>(Eligibility::any),
    detail::info<PollPolicy>(Eligibility::any),
    detail::info<CoalescePolicy>(Eligibility::any, false,
                                 static_cast<Coalescing (*)(const ParamMap&)>(
                                     &CoalescePolicy::coalescing)),
    detail::info<WatermarkPolicy>(Eligibility::dedicated_vector),
    detail::info<RatePolicy>(Eligibility::dedicated_vector),
    detail::info<CoalesceAdaptiveQueue>(Eligibility::any, true),
}};

// The policy of that name, or nullptr.
constexpr const PolicyInfo* find_policy(std::string_view name) {
  for (const auto& p : kPolicies)
    if (p.name == name) return &p;
  return nullptr;
}

// Full validation of a scenario's policy: known name, declared parameter names, legal
// ranges, then the policy's cross-field check. "" when valid, else one message that
// names the policy and the parameter.
inline std::string validate_policy(std::string_view name, const ParamMap& params,
                                   uint32_t queue_depth) {
  const PolicyInfo* info = find_policy(name);
  if (!info) {
    std::string known;
    for (const auto& p : kPolicies) known += (known.empty() ? "" : ", ") + std::string(p.name);
    return "unknown policy \"" + std::string(name) + "\" (known: " + known + ")";
  }
  for (const auto& [key, value] : params) {
    const ParamSpec* spec = nullptr;
    for (const auto& s : info->params)
      if (s.name == key) spec = &s;
    if (!spec)
      return std::string(name) + ": unknown parameter \"" + key + "\"";
    if (value < spec->min || value > spec->max)
      return std::string(name) + ": " + key + " = " + std::to_string(value) + " is outside [" +
             std::to_string(spec->min) + ", " + std::to_string(spec->max) + "]";
  }
  return info->check(params, queue_depth);
}

// Every declared parameter with its effective value (given or default), for reports.
inline ParamMap resolved_params(const PolicyInfo& info, const ParamMap& params) {
  ParamMap out;
  for (const auto& s : info.params) out[std::string(s.name)] = param(params, info.params, s.name);
  return out;
}

// A queue policy by name from validated parameters; nullopt for an unknown name.
inline std::optional<AnyQueuePolicy> make_queue_policy(std::string_view name,
                                                       const ParamMap& params) {
  const PolicyInfo* info = find_policy(name);
  if (!info) return std::nullopt;
  return info->make(params);
}

// The kName of the policy a variant holds.
inline std::string_view policy_name(const AnyQueuePolicy& p) {
  return std::visit([](const auto& x) { return std::decay_t<decltype(x)>::kName; }, p);
}

}  // namespace nvmesim::policy
