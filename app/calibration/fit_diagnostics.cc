#include "app/calibration/fit_diagnostics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nvmesim {

FitDiagnostics diagnose_fit(const Eigen::MatrixXd& jacobian, const Eigen::VectorXd& x, const Eigen::VectorXd& residuals,
                            const Eigen::VectorXd& scale, const IdentifiabilityLimits& limits,
                            double min_variance) {
  const Eigen::Index m = jacobian.rows(), n = jacobian.cols();
  FitDiagnostics d;
  d.residuals = static_cast<int>(m);
  d.parameters = static_cast<int>(n);
  d.residual_variance = m > n ? residuals.squaredNorm() / static_cast<double>(m - n) : 1.0;

  Eigen::VectorXd s(n);
  for (Eigen::Index i = 0; i < n; ++i) s[i] = std::abs(x[i]) > 0 ? std::abs(x[i]) : scale[i];
  Eigen::MatrixXd js = jacobian * s.asDiagonal();

  Eigen::JacobiSVD<Eigen::MatrixXd> svd(js, Eigen::ComputeFullV);
  d.singular_values = Eigen::VectorXd::Zero(n);
  d.singular_values.head(svd.singularValues().size()) = svd.singularValues();  // m < n: the rest are 0
  d.right_singular_vectors = svd.matrixV();
  const double smax = d.singular_values.size() ? d.singular_values[0] : 0.0;
  const double smin = d.singular_values.size() ? d.singular_values[n - 1] : 0.0;
  d.condition = smin > 0 ? smax / smin : std::numeric_limits<double>::infinity();

  const double lambda = 1e-12 * smax * smax + std::numeric_limits<double>::min();
  Eigen::MatrixXd cov_s =
      std::max(d.residual_variance, min_variance) *
      (js.transpose() * js + lambda * Eigen::MatrixXd::Identity(n, n)).inverse();
  Eigen::MatrixXd cov = s.asDiagonal() * cov_s * s.asDiagonal();
  d.std_error = cov.diagonal().cwiseSqrt();
  d.correlation = Eigen::MatrixXd::Identity(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      if (i != j) d.correlation(i, j) = cov(i, j) / std::sqrt(cov(i, i) * cov(j, j));

  d.unidentifiable.assign(n, false);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      if (i != j && std::abs(d.correlation(i, j)) > limits.max_abs_correlation) d.unidentifiable[i] = true;
  for (Eigen::Index k = 0; k < n; ++k) {
    const double sk = d.singular_values[k];
    if (!(sk == 0 || smax / sk > limits.max_condition)) continue;
    d.weak_directions.push_back(static_cast<int>(k));
    for (Eigen::Index i = 0; i < n; ++i)
      if (std::abs(d.right_singular_vectors(i, k)) >= limits.min_direction_weight) d.unidentifiable[i] = true;
  }
  // Flagged by correlation alone (finite differences rarely leave a null direction exactly
  // null): the weakest direction is the one they move along.
  bool flagged = false;
  for (bool u : d.unidentifiable) flagged = flagged || u;
  // Of the directions, the one that gives the flagged parameters most of their variance.
  if (flagged && n > 0 && d.weak_directions.empty()) {
    int pick = static_cast<int>(n - 1);
    double most = -1;
    for (Eigen::Index k = 0; k < n; ++k) {
      double sk = std::max(d.singular_values[k], smax * 1e-12 + std::numeric_limits<double>::min());
      double w = 0;
      for (Eigen::Index i = 0; i < n; ++i)
        if (d.unidentifiable[i]) w += d.right_singular_vectors(i, k) * d.right_singular_vectors(i, k);
      if (w / (sk * sk) > most) {
        most = w / (sk * sk);
        pick = static_cast<int>(k);
      }
    }
    d.weak_directions.push_back(pick);
  }
  return d;
}

}  // namespace nvmesim
