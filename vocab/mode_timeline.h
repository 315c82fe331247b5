// A policy's mode timeline as the runners record it: one change, and how many are kept
// per queue or drive (beyond the cap, changes are counted, not kept). The cap is part of
// the results contract (docs/results.md), which is why it is here and not in models/.
#pragma once

#include <cstddef>
#include <string>

#include "vocab/time.h"

namespace nvmesim {

struct ModeChange {
  Time time;
  std::string from;
  std::string to;
  std::string reason;
};
// Per queue or drive; beyond it mode changes are counted, not kept.
constexpr std::size_t kModeTimelineCap = 100000;

}  // namespace nvmesim
