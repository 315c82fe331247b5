// The feasible set of a calibration: parameter vectors that reproduce the fitting runs
// within tolerance. Candidates are the starts' end points and a sample of the best fit's
// neighbourhood along the scaled Jacobian's singular directions; each is simulated for
// every run (fitting and held out), which also gives the held-out prediction intervals.
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Dense>

#include "app/calibration/bounded_least_squares.h"
#include "app/calibration/calibration_simulator.h"
#include "app/calibration/calibration_spec.h"
#include "app/calibration/fit_diagnostics.h"
#include "app/calibration/measured_metrics.h"

namespace nvmesim {

struct Evaluation {
  Eigen::VectorXd x;
  std::vector<MetricValues> metrics;  // per run (all runs)
  double max_fit_error = 0;           // largest |sim/measured - 1| over fitting metrics
  bool feasible = false;
};

// `count` points around `best`: best + S V c, S = diag(|x|) (or `scale` where x is 0), V
// the right singular vectors, c_k from a Latin hypercube over [-e_k, e_k] with
// e_k = 2 / (sigma_k sqrt(n)), at most 1; clamped to the box.
std::vector<Eigen::VectorXd> neighbourhood(const Eigen::VectorXd& best, const FitDiagnostics& diag,
                                           const std::vector<ParamBound>& bounds, const Eigen::VectorXd& scale,
                                           int count, uint64_t seed);

// Every candidate simulated for every run; feasible when every metric of the `fitting`
// runs is within max(spec.tolerance, 2 x its run's noise) of the measurement.
std::vector<Evaluation> evaluate_candidates(const CalibrationSimulator& sim, const CalibrationSpec& spec,
                                            const std::vector<Eigen::VectorXd>& candidates,
                                            const std::vector<std::size_t>& fitting);

}  // namespace nvmesim
