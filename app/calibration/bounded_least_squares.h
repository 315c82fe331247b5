// Bounded nonlinear least squares: Eigen's (unsupported) Levenberg-Marquardt on an
// unbounded variable u mapped onto each parameter's [lo, hi] by x = lo + (hi-lo)(1+sin u)/2
// (MINUIT's and lmfit's transform), with a forward-difference Jacobian whose step is a
// fixed fraction of each parameter's range. The residual function may be a stochastic
// simulation run with fixed seeds: the step must be large enough to see through its
// quantisation. A step proportional to the range (not to the value) gives parameters with
// equal ranges equal steps, so two that enter only as their sum get identical columns.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <Eigen/Dense>

namespace nvmesim {

struct ParamBound {
  double lo = 0, hi = 0;  // lo < hi
};

// Residuals at a parameter vector (physical units, within bounds).
using ResidualFn = std::function<Eigen::VectorXd(const Eigen::VectorXd& x)>;

struct LsqOptions {
  // Forward-difference step: rel_step * (hi - lo), taken backwards when the forward point
  // would leave the bounds.
  double rel_step = 0.01;
  int max_evaluations = 200;  // residual evaluations per start, Jacobians included
  double xtol = 1e-4;         // relative change of u below which LM stops
  double ftol = 1e-6;         // relative reduction of the cost below which LM stops
};

struct LsqResult {
  Eigen::VectorXd x;          // the solution (physical units)
  Eigen::VectorXd residuals;  // at x
  double cost = 0;            // sum of squared residuals
  int evaluations = 0;
  int status = 0;             // Eigen's LevenbergMarquardtSpace::Status
};

// Minimises |f(x)|^2 over the box from `start` (clamped into it).
LsqResult fit_bounded(const ResidualFn& f, const std::vector<ParamBound>& bounds, const Eigen::VectorXd& start,
                      const LsqOptions& opts = {});

// d f / d x at x (physical units) by forward differences, the step as in LsqOptions.
// `fx` is f(x); `evaluations`, when given, is incremented per call of f.
Eigen::MatrixXd forward_jacobian(const ResidualFn& f, const Eigen::VectorXd& x, const Eigen::VectorXd& fx,
                                 const std::vector<ParamBound>& bounds, double rel_step, int* evaluations = nullptr);

// n points of a Latin hypercube over the box, from a seeded stream (deterministic): each
// parameter's range is cut into n strata, each stratum used once, a uniform point in it.
// Ranges with lo > 0 and hi/lo > 10 are stratified in log space.
std::vector<Eigen::VectorXd> latin_hypercube(const std::vector<ParamBound>& bounds, int n, uint64_t seed);

}  // namespace nvmesim
