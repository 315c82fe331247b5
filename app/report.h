// `nvmesim report DIR`: every scenario in DIR that carries a "published" block is run with
// its baseline policy and with its policy, and one Markdown table compares published and
// simulated IOPS and change, with what bounds each simulated run.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace nvmesim {

// Returns 0, or 2 after printing an input error. `overrides` apply to every run.
int report_main(const std::string& dir, const std::vector<std::string>& overrides, std::ostream& out,
                std::ostream& err);

}  // namespace nvmesim
