// What a calibration can tell, judged by the cost rather than by the Jacobian alone: the
// profile likelihood (docs/calibrating.md, "Uncertainty"). For each parameter, its value is
// stepped away from the best fit on each side, the others refitted at every step, until
// the least cost rises by the chi-square threshold (3.84 for 95%, one parameter, times
// the residual variance when that exceeds 1) or the step reaches the parameter's bound:
// the interval's ends, each found by the profile or the bound. Parameters whose interval
// is not closed on both sides form a group; the directions of their conditional
// information matrix (their scaled Jacobian with the other parameters projected out) are
// profiled the same way, stepping along each with the other parameters refitted: the
// ones that close are the combinations the data pin ("irq_entry_ns + irq_exit_ns = 1004 ±
// 12"), the others are not identifiable.
//
// The Jacobian's quantised finite differences can claim precision a histogram step does
// not hold; the cost test cannot: a direction is pinned only when moving along it costs
// the threshold. Simulator calls are bounded: at most `max_points` refits per side, each
// of at most `refit_evaluations` residual evaluations, warm-started from the linearised
// valley.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "app/calibration/bounded_least_squares.h"
#include "app/calibration/fit_diagnostics.h"

namespace nvmesim {

struct ProfileOptions {
  double threshold = 3.841458820694124;  // chi-square, 1 degree of freedom, 95%
  int max_points = 5;                    // refits per side
  int refit_evaluations = 0;             // per refit; 0: 6 + 3 x (free parameters)
  double rel_step = 0.01;                // the refits' forward-difference step
};

// One end of an interval: where the profile crossed the threshold (`closed`), or the
// bound (the cost stayed within the threshold up to it, or the search ran out of points).
struct ProfileEnd {
  double value = 0;
  bool closed = false;
};

struct ProfilePoint {
  double at = 0;       // the profiled quantity's value
  double delta = 0;    // least cost there minus the best fit's
};

struct ParameterProfile {
  ProfileEnd lower, upper;
  std::vector<ProfilePoint> points;  // in the order evaluated
  bool identifiable() const { return lower.closed && upper.closed; }
};

// A combination sum_i coefficient_i x_i over a group of parameters (coefficients 0
// outside it, the largest |coefficient| 1).
struct CombinationProfile {
  std::vector<int> group;
  Eigen::VectorXd coefficients;
  // The step it is profiled along, in each parameter's units (the largest |component| 1):
  // a combination that is not pinned is this direction, e.g. +1 entry -1 exit.
  Eigen::VectorXd direction;
  double value = 0;       // at the best fit
  double std_error = 0;   // linearised, from the conditional information (inf when none)
  ProfileEnd lower, upper;
  std::vector<ProfilePoint> points;
  // Closed on both sides but not counted as pinned: the group's parameters are not
  // identifiable alone, so at most all but one of its directions can be pinned, and this
  // is the weakest (the directions are profiled without refitting each other, which a
  // rugged, histogram-quantised cost can close spuriously).
  bool capped = false;
  bool pinned() const { return lower.closed && upper.closed && !capped; }
};

struct ProfileLikelihood {
  double threshold = 0;  // the cost rise used (the chi-square value times max(1, s^2))
  std::vector<ParameterProfile> parameters;
  std::vector<CombinationProfile> combinations;  // of the parameters not identifiable, if 2 or more
  int evaluations = 0;                           // residual evaluations spent
};

// `best` is the best fit (its x, residuals and cost), `jacobian` d residual / d x there,
// `diag` its diagnostics (the covariance for the first steps and the warm starts, the
// residual variance).
ProfileLikelihood profile_likelihood(const ResidualFn& f, const std::vector<ParamBound>& bounds,
                                     const LsqResult& best, const Eigen::MatrixXd& jacobian,
                                     const FitDiagnostics& diag, const ProfileOptions& opts = {});

}  // namespace nvmesim
