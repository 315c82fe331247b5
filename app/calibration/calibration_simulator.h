// One calibration run simulated at a parameter vector: its scenario with the values set at
// every pointer the parameter's path names, loaded with the spec's seed (common random
// numbers), run, and reduced to the metrics calibrate compares (app/calibration/measured_metrics.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "app/calibration/bounded_least_squares.h"
#include "app/calibration/calibration_spec.h"
#include "app/calibration/measured_metrics.h"
#include "app/scenario/scenario_load.h"

namespace nvmesim {

class CalibrationSimulator {
 public:
  explicit CalibrationSimulator(const CalibrationSpec& spec) : spec_(spec) {}

  // The scenario of `run` with the parameters at x, loaded; or why it cannot be.
  // `extra_set`: one more override (the ratio's other policy).
  LoadResult load(const CalibrationRun& run, const Eigen::VectorXd& x, const std::string& extra_set = "") const;

  // The run's metrics at x, with iops_ratio when the run has a ratio policy.
  // Pre: check_corners() found every run loadable.
  MetricValues metrics(const CalibrationRun& run, const Eigen::VectorXd& x) const;

  // Every run must load as given (no parameter set: one that does not is its own fault,
  // /runs/N or its `set`), then at both corners of the box, and with each parameter at its
  // max and the others at their min (a rule between two values, min <= max, at its limit):
  // a box with points the loader refuses is bad input, found before any fit.
  std::optional<InputError> check_corners(const std::vector<ParamBound>& bounds) const;

 private:
  LoadOptions options(const CalibrationRun& run, const std::string& extra_set, bool with_sets = true) const;
  MetricValues run_metrics(const CalibrationRun& run, const Eigen::VectorXd& x, const std::string& extra) const;
  const CalibrationSpec& spec_;
};

// The override that runs a scenario with `policy` instead of its own.
std::string policy_override(const std::string& policy);

}  // namespace nvmesim
