#include "policies/registry.h"

#include <gtest/gtest.h>

#include <concepts>
#include <type_traits>

#include "tests/policies/fake_queue_env.h"

namespace nvmesim::policy {
namespace {

using testing::FakeDriveEnv;
using testing::FakeQueueEnv;

// Every policy has the shape policies/api/policy.h describes, with this test's fake env
// as well as with the API's archetypes (which registry.h checks).
template <class V>
struct AllShaped;
template <class... Ps>
struct AllShaped<std::variant<Ps...>> : std::bool_constant<(QueuePolicy<Ps, FakeQueueEnv> && ...)> {};
static_assert(AllShaped<AnyQueuePolicy>::value);
static_assert(DrivePolicy<CoalesceAdaptiveDrive, FakeDriveEnv>);

// A type that lacks a hook is not a queue policy.
struct NoTimerPolicy {
  static constexpr std::string_view kName = "no_timer";
  using Params = NoParams;
  static constexpr bool kUsesVector = true;
  static constexpr bool kAppPolls = false;
  explicit NoTimerPolicy(const Params& = {}) {}
  static std::optional<ParamError> check(const Params&, uint32_t) { return std::nullopt; }
  template <QueueEnv Q> void on_interrupt(Q&) {}
  template <QueueEnv Q> ThreadStep on_thread(Q&) { return ThreadStep::park(); }
  template <QueueEnv Q> uint32_t on_app_poll(Q&) { return 0; }
  std::string_view mode() const { return "x"; }
};
static_assert(!QueuePolicy<NoTimerPolicy>);

// Found at its own entry. (Not `!= nullptr`: GCC 12 with -fsanitize=null refuses a
// constant-expression comparison of a member's address with null.)
static_assert(find_policy("rate") == &kPolicies[5]);
static_assert(find_policy("nope") == nullptr);

TEST(PolicyRegistry, ListsEveryPolicyOnceInVariantOrder) {
  const std::string_view names[] = {"irq",      "threaded", "poll",
                                    "coalesce", "watermark", "rate", "coalesce_adaptive", "measured"};
  ASSERT_EQ(kPolicies.size(), std::size(names));
  ASSERT_EQ(std::variant_size_v<AnyQueuePolicy>, std::size(names));
  for (size_t i = 0; i < kPolicies.size(); ++i) {
    EXPECT_EQ(kPolicies[i].name, names[i]);
    EXPECT_EQ(find_policy(names[i]), &kPolicies[i]);
    const auto made = make_queue_policy(names[i], ParamMap{});
    ASSERT_TRUE(made.has_value()) << names[i];
    EXPECT_EQ(made->index(), i);
    EXPECT_EQ(policy_name(*made), names[i]);
  }
  EXPECT_FALSE(make_queue_policy("nope", ParamMap{}).has_value());
}

TEST(PolicyRegistry, ParamsAreThePolicysOwnTable) {
  EXPECT_EQ(find_policy("irq")->params.size(), 0u);
  EXPECT_EQ(find_policy("watermark")->params.data(), kParamSpecs<WatermarkPolicy::Params>.data());
  EXPECT_EQ(find_policy("rate")->params.size(), kParamSpecs<RatePolicy::Params>.size());
  EXPECT_EQ(find_policy("coalesce_adaptive")->params.data(),
            kParamSpecs<CoalesceAdaptiveDrive::Params>.data());
  EXPECT_EQ(find_policy("coalesce")->params.size(), 2u);
}

TEST(PolicyRegistry, FlagsTellTheRunnerWhatToWire) {
  const auto* poll = find_policy("poll");
  EXPECT_FALSE(poll->uses_vector);
  EXPECT_TRUE(poll->app_polls);
  for (const auto& p : kPolicies) {
    if (p.name == "poll") continue;
    EXPECT_TRUE(p.uses_vector) << p.name;
    EXPECT_FALSE(p.app_polls) << p.name;
    EXPECT_EQ(p.per_drive(), p.name == "coalesce_adaptive") << p.name;
    EXPECT_EQ(p.static_coalescing != nullptr, p.name == "coalesce") << p.name;
    const bool dedicated = p.name == "watermark" || p.name == "rate" || p.name == "measured";
    EXPECT_EQ(p.eligibility, dedicated ? Eligibility::dedicated_vector : Eligibility::any)
        << p.name;
  }
  EXPECT_EQ(find_policy("coalesce")->static_coalescing({{"thr", 3}, {"time_100us", 9}}),
            (Coalescing{3, 9}));
}

TEST(PolicyRegistry, ValidatesNamesParametersRangesAndCrossFieldRules) {
  EXPECT_EQ(validate_policy("watermark", ParamMap{}, 1024), std::nullopt);
  const auto unknown = validate_policy("fast", ParamMap{}, 1024);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->param, "");
  EXPECT_NE(unknown->message.find("unknown policy \"fast\""), std::string::npos) << unknown->message;
  EXPECT_NE(unknown->message.find("coalesce_adaptive"), std::string::npos) << unknown->message;
  EXPECT_EQ(validate_policy("irq", {{"thr", 1}}, 1024),
            (ParamError{"thr", "irq: unknown parameter \"thr\" (it has none)"}));
  EXPECT_EQ(validate_policy("coalesce", {{"thrr", 1}}, 1024),
            (ParamError{"thrr", "coalesce: unknown parameter \"thrr\" (known: thr, time_100us)"}));
  EXPECT_EQ(validate_policy("coalesce", {{"thr", 255}, {"time_100us", 0}}, 1024), std::nullopt);
  EXPECT_EQ(validate_policy("coalesce", {{"thr", 256}}, 1024),
            (ParamError{"thr", "coalesce: thr = 256 is outside [0, 255]"}));
  EXPECT_EQ(validate_policy("coalesce", {{"time_100us", -1}}, 1024),
            (ParamError{"time_100us", "coalesce: time_100us = -1 is outside [0, 255]"}));
  EXPECT_EQ(validate_policy("watermark", {{"interval_us", 0}}, 1024),
            (ParamError{"interval_us", "watermark: interval_us = 0 is outside [1, 1000000]"}));
  // Cross-field: the error names the parameter it blames, for an exact JSON path.
  const auto cross = validate_policy("watermark", {{"inflight_high", 64}}, 64);
  ASSERT_TRUE(cross);
  EXPECT_EQ(cross->param, "inflight_high");
  const auto low = validate_policy("watermark", {{"inflight_high", 2}, {"inflight_low", 3}}, 1024);
  ASSERT_TRUE(low);
  EXPECT_EQ(low->param, "inflight_high");
  EXPECT_EQ(validate_policy("watermark", {{"inflight_high", 63}}, 64), std::nullopt);
}

TEST(PolicyRegistry, EveryDeclaredFieldRoundTripsThroughTheMap) {
  // Each table row points at its own field: setting it by name changes exactly that field.
  for (const auto& info : kPolicies) {
    for (const auto& spec : info.params) {
      const int64_t v = spec.default_value == spec.max ? spec.min : spec.max;
      ParamMap given{{std::string(spec.name), v}};
      if (info.validate(given, 1u << 30)) continue;  // a cross-field rule forbids it alone
      const ParamMap r = info.resolve(given);
      for (const auto& other : info.params)
        EXPECT_EQ(r.at(std::string(other.name)), other.name == spec.name ? v : other.default_value)
            << info.name << "." << spec.name << " vs " << other.name;
    }
  }
}

TEST(PolicyRegistry, DrivePoliciesComeFromTheRegistry) {
  EXPECT_FALSE(make_drive_policy("irq", {}).has_value());
  EXPECT_FALSE(make_drive_policy("nope", {}).has_value());
  auto d = make_drive_policy("coalesce_adaptive", {{"cycle_us", 1000}});
  ASSERT_TRUE(d.has_value());
  FakeDriveEnv env;
  EXPECT_EQ(std::visit([&](auto& p) { return p.on_monitor(env); }, *d), Duration::us(1000));
}

TEST(PolicyRegistry, ResolvedParamsFillDefaults) {
  const ParamMap r = resolved_params(*find_policy("rate"), {{"window", 1024}});
  EXPECT_EQ(r.size(), kParamSpecs<RatePolicy::Params>.size());
  EXPECT_EQ(r.at("window"), 1024);
  EXPECT_EQ(r.at("hold_windows"), 64);
  EXPECT_EQ(r.at("budget"), 256);
  EXPECT_TRUE(resolved_params(*find_policy("poll"), {}).empty());
}

TEST(PolicyRegistry, HooksDispatchThroughTheVariant) {
  AnyQueuePolicy pol = *make_queue_policy("watermark", {{"inflight_high", 8}});
  FakeQueueEnv q;
  q.pending = 2;
  q.inflight_ = 10;
  std::visit([&](auto& p) { p.on_interrupt(q); }, pol);
  EXPECT_EQ(std::visit([](const auto& p) { return p.mode(); }, pol), "thread_poll");
  EXPECT_TRUE(q.masked);
}

}  // namespace
}  // namespace nvmesim::policy
