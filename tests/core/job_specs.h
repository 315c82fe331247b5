// A job spec from the three fields topology tests vary (clones, their CPUs, their drives),
// the rest at the spec's defaults.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "vocab/scenario.h"

namespace nvmesim::testing {

inline JobSpec job(uint32_t numjobs, std::vector<uint32_t> cpus, std::vector<uint32_t> drives) {
  JobSpec j;
  j.numjobs = numjobs;
  j.cpus_allowed = std::move(cpus);
  j.drives = std::move(drives);
  return j;
}

}  // namespace nvmesim::testing
