// What a queue policy and a drive policy are, as concepts the registry and the runners
// check their policy types against (the prose is in policies/api/policy.h). The hooks are
// templates over the runner's env, so the concepts test them against archetypes: types
// with exactly the members QueueEnv / DriveEnv require and nothing else, declared only.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "policies/api/params.h"
#include "policies/api/queue_env.h"
#include "policies/api/steps.h"

namespace nvmesim::policy {

namespace archetype {
// Never defined: only named in unevaluated requirements.
struct QueueEnvArchetype {
  Time now() const;
  uint32_t inflight() const;
  uint32_t depth() const;
  bool cqe_pending() const;
  uint64_t drive_completions() const;
  uint64_t drive_word() const;
  void set_drive_word(uint64_t);
  uint32_t drain();
  uint32_t drain_budget(uint32_t);
  bool poll_check();
  void mask_vector();
  void unmask_vector();
  void wake_thread();
  void arm_timer(Duration);
  void cancel_timer();
  QueueCounters& counters();
  LatencyBuckets& latencies();
  void mode_change(std::string_view, std::string_view, std::string);
};
static_assert(QueueEnv<QueueEnvArchetype>);

struct DriveEnvArchetype {
  Time now() const;
  uint64_t completions_total() const;
  uint64_t inflight_total() const;
  double inflight_integral() const;
  uint32_t io_queue_count() const;
  void set_coalescing(uint32_t, uint32_t);
  void mode_change(std::string_view, std::string_view, std::string);
};
static_assert(DriveEnv<DriveEnvArchetype>);
}  // namespace archetype

// Parameters: a ParamStruct `Params`, built from validated values, and a cross-field
// check that names the parameter it blames.
template <class P>
concept HasParams = ParamStruct<typename P::Params> &&
    std::constructible_from<P, const typename P::Params&> &&
    requires(const typename P::Params& p, uint32_t queue_depth) {
      { P::kName } -> std::convertible_to<std::string_view>;
      { P::check(p, queue_depth) } -> std::same_as<std::optional<ParamError>>;
    };

// A per-queue completion policy, as both runners call it.
template <class P, class Q = archetype::QueueEnvArchetype>
concept QueuePolicy = HasParams<P> && QueueEnv<Q> && requires(P& p, const P& cp, Q& q) {
  { P::kUsesVector } -> std::convertible_to<bool>;
  { P::kAppPolls } -> std::convertible_to<bool>;
  p.on_interrupt(q);
  { p.on_thread(q) } -> std::same_as<ThreadStep>;
  { p.on_timer(q) } -> std::same_as<TimerStep>;
  { p.on_app_poll(q) } -> std::same_as<uint32_t>;
  { cp.mode() } -> std::same_as<std::string_view>;
};

// A per-drive (controller) policy: a periodic monitor.
template <class P, class D = archetype::DriveEnvArchetype>
concept DrivePolicy = HasParams<P> && DriveEnv<D> && requires(P& p, const P& cp, D& d) {
  { p.on_monitor(d) } -> std::same_as<Duration>;
  { cp.mode() } -> std::same_as<std::string_view>;
};

}  // namespace nvmesim::policy
