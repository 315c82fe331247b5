#include "app/results/mode_share.h"

namespace nvmesim::results {

std::map<std::string, double> mode_shares(const std::vector<TimelineEntry>& timeline, std::string_view final_mode,
                                          int64_t from_ns, int64_t to_ns) {
  std::map<std::string, double> out;
  if (to_ns <= from_ns) return out;
  // The mode at from_ns: the last change at or before it, else the first change's origin.
  std::string mode = timeline.empty() ? std::string(final_mode) : timeline.front().from;
  std::map<std::string, int64_t> ns;
  int64_t t = from_ns;
  for (const TimelineEntry& e : timeline) {
    if (e.t_ns <= from_ns) {
      mode = e.to;
      continue;
    }
    if (e.t_ns >= to_ns) break;
    ns[mode] += e.t_ns - t;
    t = e.t_ns;
    mode = e.to;
  }
  ns[mode] += to_ns - t;
  const auto w = static_cast<double>(to_ns - from_ns);
  for (const auto& [m, d] : ns)
    if (d > 0) out[m] = frac(static_cast<double>(d) / w);
  return out;
}

bool changed_within(const std::vector<TimelineEntry>& timeline, int64_t from_ns, int64_t to_ns) {
  for (const TimelineEntry& e : timeline)
    if (e.t_ns >= from_ns && e.t_ns < to_ns) return true;
  return false;
}

}  // namespace nvmesim::results
