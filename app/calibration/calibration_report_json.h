// The calibration report document, `nvmesim-calibration/1` (docs/calibrating.md, "Reading
// the report"): the method, each parameter with its standard error, interval, feasible
// range and identifiability, the correlations and singular values, the starts, the
// feasible set, every run's metrics with the held-out prediction intervals, and the
// held-out errors.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/calibration/calibration_fit.h"
#include "app/calibration/calibration_spec.h"

namespace nvmesim {

nlohmann::json calibration_report_json(const CalibrationSpec& spec, const std::string& fitted_on,
                                       const CalibrationFit& fit);

}  // namespace nvmesim
