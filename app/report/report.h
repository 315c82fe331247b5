// `nvmesim report DIR`: every scenario in DIR that carries a "published" block is run with
// its baseline policy and with its policy, and one Markdown table compares published and
// simulated IOPS and change, with what bounds each simulated run. With several seeds
// (policy B's poll try is decided by microseconds, so one seed is not a result for its
// rows) each row runs at the scenario's seed and the next ones, paired: the table gives
// the medians and the change's range, and a second table every seed's change.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace nvmesim {

struct ReportOptions {
  std::vector<std::string> overrides;  // --set, for every run
  uint32_t seeds = 1;                  // the scenario's seed S, then S+1 ... S+seeds-1
};
inline constexpr uint32_t kMaxReportSeeds = 100;

// Returns 0, or 2 after printing an input error.
int report_main(const std::string& dir, const ReportOptions& opts, std::ostream& out, std::ostream& err);

}  // namespace nvmesim
