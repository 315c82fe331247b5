#include "app/calibration/feasible_set.h"

#include <algorithm>
#include <cmath>

namespace nvmesim {

using Eigen::VectorXd;

std::vector<VectorXd> neighbourhood(const VectorXd& best, const FitDiagnostics& diag,
                                    const std::vector<ParamBound>& bounds, const VectorXd& scale, int count,
                                    uint64_t seed) {
  // A move of e_k along direction k changes the residuals by about two noise units in all
  // (the feasibility rule's scale); at most 1 (a 100% change) along directions the data
  // barely see.
  const std::size_t n = bounds.size();
  std::vector<VectorXd> points;
  std::vector<ParamBound> unit(n, ParamBound{-1, 1});
  const double spread = 2.0 / std::sqrt(static_cast<double>(n));
  for (const VectorXd& c : latin_hypercube(unit, count, seed)) {
    VectorXd step = VectorXd::Zero(static_cast<Eigen::Index>(n));
    for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(n); ++k) {
      double sk = diag.singular_values[k];
      double e = sk > 0 ? std::min(spread / sk, 1.0) : 1.0;
      step += c[k] * e * diag.right_singular_vectors.col(k);
    }
    VectorXd x = best;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      double s = std::abs(best[i]) > 0 ? std::abs(best[i]) : scale[i];
      x[i] = std::clamp(best[i] + s * step[i], bounds[static_cast<std::size_t>(i)].lo,
                        bounds[static_cast<std::size_t>(i)].hi);
    }
    points.push_back(x);
  }
  return points;
}

std::vector<Evaluation> evaluate_candidates(const CalibrationSimulator& sim, const CalibrationSpec& spec,
                                            const std::vector<VectorXd>& candidates,
                                            const std::vector<std::size_t>& fitting) {
  std::vector<Evaluation> evals;
  for (const VectorXd& x : candidates) {
    Evaluation e;
    e.x = x;
    for (const auto& run : spec.runs) e.metrics.push_back(sim.metrics(run, e.x));
    e.feasible = true;
    for (std::size_t i : fitting) {
      const CalibrationRun& run = spec.runs[i];
      const double tol = std::max(spec.tolerance, 2 * run.noise);
      for (const auto& [k, v] : run.measured) {
        double err = std::abs(e.metrics[i].at(k) / v - 1);
        e.max_fit_error = std::max(e.max_fit_error, err);
        if (err > tol) e.feasible = false;
      }
    }
    evals.push_back(std::move(e));
  }
  return evals;
}

}  // namespace nvmesim
