// The calibration report (`nvmesim-calibration/1`, app/calibration/calibrate.h) as Markdown: what
// `nvmesim calibrate --report DIR` writes as report.md beside report.json.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nvmesim {

std::string calibration_report_markdown(const nlohmann::json& report);

}  // namespace nvmesim
