// Every completion policy by name: the one place a loader validates
// {"name": ..., "params": {...}} and a runner constructs a policy, without knowing any
// policy's type. Queue policies go into AnyQueuePolicy (std::visit to call hooks);
// policy C additionally has a per-drive monitor, in AnyDrivePolicy (see
// PolicyInfo::make_drive).
#pragma once

#include <array>
#include <cassert>
#include <cstdlib>
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
#include "policies/measured.h"
#include "policies/poll.h"
#include "policies/rate.h"
#include "policies/threaded.h"
#include "policies/watermark.h"

namespace nvmesim::policy {

using AnyQueuePolicy = std::variant<IrqPolicy, ThreadedPolicy, PollPolicy, CoalescePolicy,
                                    WatermarkPolicy, RatePolicy, CoalesceAdaptiveQueue, MeasuredPolicy>;
// Per-drive monitors (policy C): nothing outside the registry names their types.
using AnyDrivePolicy = std::variant<CoalesceAdaptiveDrive>;

namespace detail {
template <class V>
struct AllQueuePolicies;
template <class... Ps>
struct AllQueuePolicies<std::variant<Ps...>> : std::bool_constant<(QueuePolicy<Ps> && ...)> {};
template <class V>
struct AllDrivePolicies;
template <class... Ps>
struct AllDrivePolicies<std::variant<Ps...>> : std::bool_constant<(DrivePolicy<Ps> && ...)> {};
}  // namespace detail
static_assert(detail::AllQueuePolicies<AnyQueuePolicy>::value);
static_assert(detail::AllDrivePolicies<AnyDrivePolicy>::value);

// Which queues may run the policy; the others run IrqPolicy (B0).
enum class Eligibility {
  any,               // every I/O queue
  dedicated_vector,  // I/O queues whose MSI-X vector is not shared (the controller has more
                     // than one vector) and threaded interrupts are not in use
};

struct PolicyInfo {
  std::string_view name;
  std::span<const ParamSpec> params;  // every parameter: default, range, unit, meaning
  // The one validator: declared names, ranges, then the policy's cross-field check.
  std::optional<ParamError> (*validate)(const ParamMap&, uint32_t queue_depth);
  // Every declared parameter with its effective value (given or default); validated input.
  ParamMap (*resolve)(const ParamMap&);
  AnyQueuePolicy (*make)(const ParamMap&);  // from validated params
  bool uses_vector;   // false: polled queues, no MSI-X vector
  bool app_polls;     // the submitting task reaps by polling (on_app_poll)
  bool watches_latency;  // the runner keeps QueueEnv::latencies() (kWatchesLatency)
  Eligibility eligibility;
  // The per-drive monitor of a drive policy (policy C), or nullptr. Its queues run the
  // queue policy of the same name.
  AnyDrivePolicy (*make_drive)(const ParamMap&);
  // Static Feature 08h value to program for all I/O vectors before the run, or nullptr.
  Coalescing (*static_coalescing)(const ParamMap&);
  // When the policy's first decision can come at the earliest, in us from the start of
  // the run (policy C: the end of its first monitoring cycle), or nullptr: it can act at
  // once. A warm-up shorter than this measures the policy before it has acted.
  int64_t (*first_decision_us)(const ParamMap&);

  bool per_drive() const { return make_drive != nullptr; }
};

// Whether a queue policy asks its runner for completion latencies (kWatchesLatency; absent:
// no). The simulator reads it through PolicyInfo, the hw runner from the policy type.
template <class P>
constexpr bool watches_latency() {
  if constexpr (requires { P::kWatchesLatency; }) return P::kWatchesLatency;
  return false;
}

namespace detail {
// Validated values as the policy's struct. Precondition: validate() passed (the loaders
// and the hw runner validate first); anything else is a programming error.
template <class P>
typename P::Params typed_params(const ParamMap& m) {
  auto r = params_from_map<typename P::Params>(P::kName, m);
  if (std::holds_alternative<ParamError>(r)) {
    assert(false && "policy parameters used without validate_policy");
    std::abort();
  }
  return std::get<typename P::Params>(r);
}
template <class P>
std::optional<ParamError> validate(const ParamMap& m, uint32_t queue_depth) {
  auto r = params_from_map<typename P::Params>(P::kName, m);
  if (auto* e = std::get_if<ParamError>(&r)) return *e;
  return P::check(std::get<typename P::Params>(r), queue_depth);
}
template <class P>
ParamMap resolve(const ParamMap& m) {
  return params_to_map(typed_params<P>(m));
}
template <class P>
AnyQueuePolicy make_queue(const ParamMap& m) {
  return AnyQueuePolicy(std::in_place_type<P>, typed_params<P>(m));
}
template <class D>
AnyDrivePolicy make_drive(const ParamMap& m) {
  return AnyDrivePolicy(std::in_place_type<D>, typed_params<D>(m));
}
inline Coalescing coalesce_static(const ParamMap& m) {
  return CoalescePolicy::coalescing(typed_params<CoalescePolicy>(m));
}
// The first monitor call only takes a baseline; the decision comes one cycle later.
inline int64_t first_cycle_end_us(const ParamMap& m) {
  return typed_params<CoalesceAdaptiveDrive>(m).cycle_us;
}
template <class P>
constexpr PolicyInfo info(Eligibility e, AnyDrivePolicy (*drive)(const ParamMap&) = nullptr,
                          Coalescing (*coalescing)(const ParamMap&) = nullptr,
                          int64_t (*first_decision_us)(const ParamMap&) = nullptr) {
  return {P::kName,        std::span<const ParamSpec>(kParamSpecs<typename P::Params>),
          &validate<P>,    &resolve<P>,
          &make_queue<P>,  P::kUsesVector,
          P::kAppPolls,    watches_latency<P>(), e,
          drive,           coalescing,
          first_decision_us};
}
}  // namespace detail

inline constexpr std::array<PolicyInfo, 8> kPolicies{{
    detail::info<IrqPolicy>(Eligibility::any),
    detail::info<ThreadedPolicy>(Eligibility::any),
    detail::info<PollPolicy>(Eligibility::any),
    detail::info<CoalescePolicy>(Eligibility::any, nullptr, &detail::coalesce_static),
    detail::info<WatermarkPolicy>(Eligibility::dedicated_vector),
    detail::info<RatePolicy>(Eligibility::dedicated_vector),
    detail::info<CoalesceAdaptiveQueue>(Eligibility::any, &detail::make_drive<CoalesceAdaptiveDrive>, nullptr,
                                        &detail::first_cycle_end_us),
    detail::info<MeasuredPolicy>(Eligibility::dedicated_vector),
}};

// The policy of that name, or nullptr.
constexpr const PolicyInfo* find_policy(std::string_view name) {
  for (const auto& p : kPolicies)
    if (p.name == name) return &p;
  return nullptr;
}

// Full validation of a scenario's policy: known name, declared parameter names, legal
// ranges, then the policy's cross-field check. nullopt when valid, else an error that
// names the parameter (param empty: the policy's name is unknown).
inline std::optional<ParamError> validate_policy(std::string_view name, const ParamMap& params,
                                                 uint32_t queue_depth) {
  const PolicyInfo* info = find_policy(name);
  if (!info) {
    std::string known;
    for (const auto& p : kPolicies) known += (known.empty() ? "" : ", ") + std::string(p.name);
    return ParamError{"", "unknown policy \"" + std::string(name) + "\" (known: " + known + ")"};
  }
  return info->validate(params, queue_depth);
}

// Every declared parameter with its effective value (given or default), for reports.
inline ParamMap resolved_params(const PolicyInfo& info, const ParamMap& params) {
  return info.resolve(params);
}

// A queue policy by name from validated parameters; nullopt for an unknown name.
inline std::optional<AnyQueuePolicy> make_queue_policy(std::string_view name,
                                                       const ParamMap& params) {
  const PolicyInfo* info = find_policy(name);
  if (!info) return std::nullopt;
  return info->make(params);
}

// The drive monitor of a drive policy from validated parameters; nullopt when the policy
// is unknown or works per queue only.
inline std::optional<AnyDrivePolicy> make_drive_policy(std::string_view name,
                                                       const ParamMap& params) {
  const PolicyInfo* info = find_policy(name);
  if (!info || !info->per_drive()) return std::nullopt;
  return info->make_drive(params);
}

// The kName of the policy a variant holds.
inline std::string_view policy_name(const AnyQueuePolicy& p) {
  return std::visit([](const auto& x) { return std::decay_t<decltype(x)>::kName; }, p);
}

// How many monitoring cycles a drive monitor has evaluated (each one a decision, whether
// or not it changed the mode).
inline uint64_t drive_policy_decisions(const AnyDrivePolicy& d) {
  return std::visit([](const auto& x) { return x.counters().cycles; }, d);
}

// The current mode of a drive monitor, for the timeline and the results.
inline std::string_view drive_policy_mode(const AnyDrivePolicy& d) {
  return std::visit([](const auto& x) { return x.mode(); }, d);
}

}  // namespace nvmesim::policy
