// B3 `coalesce`: static NVMe Interrupt Coalescing (Set Features, Feature ID 08h).
//
// The controller holds a vector's interrupt until either THR+1 CQEs have been posted to
// it (THR is 0's based: THR=7 means 8 entries) or TIME x 100 us have passed since the
// first of them; THR=0 or TIME=0 turns coalescing off. The admin queue is never
// coalesced. The host side is B0 unchanged: the hard-IRQ handler drains the CQ.
//
// Runner: before the run (controller setup, not measured), program Feature 08h with
// coalescing() for every I/O vector. Feature 09h (per-vector CD bit) stays clear for
// I/O vectors; the admin vector is never coalesced whatever 08h says.
//
// Defaults (thr=7, time_100us=1: 8 entries or 100 us) are an assumption of ours; the
// spec leaves them to the user.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "policies/api/policy.h"
#include "policies/irq.h"

namespace nvmesim::policy {

// The Feature 08h value a policy asks the controller for.
struct Coalescing {
  uint32_t thr = 0;         // aggregation threshold, 0's based (entries - 1)
  uint32_t time_100us = 0;  // aggregation time in 100 us units
  // Per the NVMe base spec, THR=0 or TIME=0 disables coalescing.
  constexpr bool enabled() const { return thr != 0 && time_100us != 0; }
  constexpr bool operator==(const Coalescing&) const = default;
};

// CoalescePolicy's parameters (defaults are the initialisers).
struct CoalesceParams {
  int64_t thr = 7;
  int64_t time_100us = 1;
  static constexpr std::array<ParamField<CoalesceParams>, 2> kFields{{
      {"thr", &CoalesceParams::thr, 0, 255, "entries-1",
       "Feature 08h aggregation threshold, 0's based (7 = 8 CQEs); 0 disables coalescing. "
       "Default 7 is an assumption"},
      {"time_100us", &CoalesceParams::time_100us, 0, 255, "100us",
       "Feature 08h aggregation time in 100 us units; 0 disables coalescing. Default 1 is an "
       "assumption"},
  }};
};

class CoalescePolicy : public B0Hooks {  // hard IRQ: B0
 public:
  static constexpr std::string_view kName = "coalesce";
  using Params = CoalesceParams;
  static constexpr bool kUsesVector = true;
  static constexpr bool kAppPolls = false;

  explicit CoalescePolicy(const Params& p = {}) : coalescing_(coalescing(p)) {}
  static std::optional<ParamError> check(const Params&, uint32_t) { return std::nullopt; }

  // What to program into Feature 08h, from validated parameters.
  static Coalescing coalescing(const Params& p) {
    return {static_cast<uint32_t>(p.thr), static_cast<uint32_t>(p.time_100us)};
  }
  Coalescing coalescing() const { return coalescing_; }

  std::string_view mode() const { return coalescing_.enabled() ? "coalesce_on" : "coalesce_off"; }

 private:
  Coalescing coalescing_;
};

}  // namespace nvmesim::policy
