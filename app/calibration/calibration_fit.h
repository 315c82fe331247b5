// What the steps of `nvmesim calibrate` (app/calibration/calibrate.cc) found, for the report and the
// fitted profiles to describe: the starts and their fits, the diagnostics at the best
// one, and the feasible set's candidates.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "app/calibration/bounded_least_squares.h"
#include "app/calibration/feasible_set.h"
#include "app/calibration/fit_diagnostics.h"
#include "app/calibration/measurement_noise.h"
#include "app/calibration/profile_likelihood.h"

namespace nvmesim {

struct CalibrationFit {
  std::vector<std::size_t> fitting, held_out;  // indices of the spec's runs
  std::vector<Eigen::VectorXd> starts;         // the profile's own values first
  std::vector<LsqResult> fits;                 // one per start
  std::size_t best = 0;                        // the fit with the least cost
  FitDiagnostics diag;                         // at the best fit
  // Per run (all of them), per measured metric: the noise its residual is divided by.
  std::vector<std::map<std::string, MetricNoise>> noise;
  ProfileLikelihood profile;                   // around the best fit
  // Residual evaluations (each simulates every fitting run) by stage, for the report.
  int fit_evaluations = 0, jacobian_evaluations = 0;
  // The candidates of the feasible set, evaluated: the fits' end points first, in order
  // (so evaluations[best] is the best fit), then its neighbourhood.
  std::vector<Evaluation> evaluations;
  // Indices into evaluations of the feasible set's members. The best fit is always one:
  // when it does not meet the tolerance itself it comes first (the report says so).
  std::vector<std::size_t> feasible;

  const LsqResult& best_fit() const { return fits[best]; }
  const Evaluation& at_best() const { return evaluations[best]; }
};

}  // namespace nvmesim
