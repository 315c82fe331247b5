// The fitted profiles that `nvmesim calibrate -o` writes, by slot ("/host",
// "/drives/*/profile", ...): the input profile with the fitted values in, and `sources`
// saying what each value was fitted to, when, with its standard error, whether it is
// identifiable, and the residuals at the fit.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/calibration/calibration_fit.h"
#include "app/calibration/calibration_spec.h"

namespace nvmesim {

nlohmann::json fitted_profiles(const CalibrationSpec& spec, const std::string& fitted_on, const CalibrationFit& fit);

}  // namespace nvmesim
