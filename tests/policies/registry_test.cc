#include "policies/registry.h"

#include <gtest/gtest.h>

#include <concepts>
#include <type_traits>

#include "tests/policies/fake_queue_env.h"

namespace nvmesim::policy {
namespace {

using testing::FakeDriveEnv;
using testing::FakeQueueEnv;

// The queue-policy shape policies/api/policy.h describes.
template <class P>
concept QueuePolicyShape =
    std::constructible_from<P, const ParamMap&> &&
    requires(P& p, const P& cp, FakeQueueEnv& q, const ParamMap& m, uint32_t depth) {
      { P::kName } -> std::convertible_to<std::string_view>;
      { std::span<const ParamSpec>(P::kParams) };
      { P::kUsesVector } -> std::convertible_to<bool>;
      { P::kAppPolls } -> std::convertible_to<bool>;
      { P::check(m, depth) } -> std::same_as<std::string>;
      p.on_interrupt(q);
      { p.on_thread(q) } -> std::same_as<ThreadStep>;
      { p.on_timer(q) } -> std::same_as<TimerStep>;
      { p.on_app_poll(q) } -> std::same_as<uint32_t>;
      { cp.mode() } -> std::same_as<std::string_view>;
    };

template <class V>
struct AllShaped;
template <class... Ps>
struct AllShaped<std::variant<Ps...>> : std::bool_constant<(QueuePolicyShape<Ps> && ...)> {};
static_assert(AllShaped<AnyQueuePolicy>::value);

static_assert(requires(CoalesceAdaptiveDrive& p, FakeDriveEnv& d) {
  { p.on_monitor(d) } -> std::same_as<Duration>;
});

// Found at its own entry. (Not `!= nullptr`: GCC 12 with -fsanitize=null refuses a
// constant-expression comparison of a member's address with null.)
static_assert(find_policy("rate") == &kPolicies[5]);
static_assert(find_policy("nope") == nullptr);

TEST(PolicyRegistry, ListsEveryPolicyOnceInVariantOrder) {
  const std::string_view names[] = {"irq",      "threaded", "poll",
                                    "coalesce", "watermark", "rate", "coalesce_adaptive"};
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
  EXPECT_EQ(find_policy("watermark")->params.data(), WatermarkPolicy::kParams.data());
  EXPECT_EQ(find_policy("rate")->params.size(), RatePolicy::kParams.size());
  EXPECT_EQ(find_policy("coalesce_adaptive")->params.data(),
            CoalesceAdaptiveDrive::kParams.data());
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
    EXPECT_EQ(p.per_drive, p.name == "coalesce_adaptive") << p.name;
    EXPECT_EQ(p.static_coalescing != nullptr, p.name == "coalesce") << p.name;
    const bool dedicated = p.name == "watermark" || p.name == "rate";
    EXPECT_EQ(p.eligibility, dedicated ? Eligibility::dedicated_vector : Eligibility::any)
        << p.name;
  }
  EXPECT_EQ(find_policy("coalesce")->static_coalescing({{"thr", 3}, {"time_100us", 9}}),
            (Coalescing{3, 9}));
}

TEST(PolicyRegistry, ValidatesNamesParametersRangesAndCrossFieldRules) {
  EXPECT_EQ(validate_policy("watermark", ParamMap{}, 1024), "");
  const std::string unknown = validate_policy("fast", ParamMap{}, 1024);
  EXPECT_NE(unknown.find("unknown policy \"fast\""), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("coalesce_adaptive"), std::string::npos) << unknown;
  EXPECT_EQ(validate_policy("irq", {{"thr", 1}}, 1024), "irq: unknown parameter \"thr\"");
  EXPECT_EQ(validate_policy("coalesce", {{"thr", 255}, {"time_100us", 0}}, 1024), "");
  EXPECT_EQ(validate_policy("coalesce", {{"thr", 256}}, 1024),
            "coalesce: thr = 256 is outside [0, 255]");
  EXPECT_EQ(validate_policy("coalesce", {{"time_100us", -1}}, 1024),
            "coalesce: time_100us = -1 is outside [0, 255]");
  EXPECT_EQ(validate_policy("watermark", {{"interval_us", 0}}, 1024),
            "watermark: interval_us = 0 is outside [1, 1000000]");
  const std::string cross = validate_policy("watermark", {{"inflight_high", 64}}, 64);
  EXPECT_NE(cross.find("inflight_high"), std::string::npos) << cross;
  EXPECT_EQ(validate_policy("watermark", {{"inflight_high", 63}}, 64), "");
}

TEST(PolicyRegistry, ResolvedParamsFillDefaults) {
  const ParamMap r = resolved_params(*find_policy("rate"), {{"window", 1024}});
  EXPECT_EQ(r.size(), RatePolicy::kParams.size());
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
