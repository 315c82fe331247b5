// nvmesim calibrate: fits profile parameters to measured runs by running the simulator
// (docs/calibrating.md). Deterministic: the same spec and date give
// the same report and fitted profiles, byte for byte.
#pragma once

#include <functional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "app/calibration/calibration_spec.h"

namespace nvmesim {

struct CalibrationOutcome {
  // `nvmesim-calibration/1`: parameters with standard errors and intervals, correlations,
  // singular values, flags, the starts, the feasible set, and every run's metrics with the
  // prediction interval of the held-out ones.
  nlohmann::json report;
  // The fitted profiles by slot ("/host", "/drives/*/profile", ...): the input profile with
  // the fitted values in, and `sources` saying what each was fitted to, when, with residuals.
  nlohmann::json profiles;
};

// `progress`, when set, is told what is being done (one line per start and stage). An
// InputError when a run does not load at a corner of the parameters' box.
std::variant<CalibrationOutcome, InputError> calibrate(const CalibrationSpec& spec, const std::string& fitted_on,
                             const std::function<void(const std::string&)>& progress = {});

// Today's date in UTC, YYYY-MM-DD (the default `fitted_on`).
std::string utc_date_today();

}  // namespace nvmesim
