// What share of the measured window a queue or drive spent in each mode of its policy,
// from its mode timeline (which covers the whole run, warm-up included). An adaptive
// policy that never changed mode inside the window measured only its starting mode:
// results say so instead of letting the numbers pass for the policy's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "app/results/run_record.h"

namespace nvmesim::results {

// Fractions of [from_ns, to_ns) per mode; `final_mode` is the mode when there is no entry.
std::map<std::string, double> mode_shares(const std::vector<TimelineEntry>& timeline, std::string_view final_mode,
                                          int64_t from_ns, int64_t to_ns);
// Whether any mode change falls inside [from_ns, to_ns).
bool changed_within(const std::vector<TimelineEntry>& timeline, int64_t from_ns, int64_t to_ns);

}  // namespace nvmesim::results
