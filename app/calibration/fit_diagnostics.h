// What a least-squares fit can and cannot tell: standard errors, correlations, and the
// singular values of the scaled Jacobian, with the parameters the data do not pin flagged.
#pragma once

#include <vector>

#include <Eigen/Dense>

namespace nvmesim {

struct IdentifiabilityLimits {
  double max_abs_correlation = 0.95;  // above: both parameters flagged
  double max_condition = 1e6;         // above: the weak singular directions flagged
  // A parameter takes part in a weak direction when its component is at least this.
  double min_direction_weight = 0.1;
};

struct FitDiagnostics {
  int residuals = 0, parameters = 0;
  // Residual variance s^2 = RSS / (m - n); 1 when m <= n (residuals already in units of
  // the measurement noise).
  double residual_variance = 1;
  Eigen::VectorXd std_error;       // physical units
  Eigen::MatrixXd correlation;
  Eigen::VectorXd singular_values;  // of the scaled Jacobian, descending
  Eigen::MatrixXd right_singular_vectors;  // columns: directions in ln-parameter space
  double condition = 0;             // s_max / s_min; infinity when s_min is 0
  std::vector<bool> unidentifiable;
  // Columns of right_singular_vectors (indices) whose singular value makes the condition
  // exceed the limit, or, when parameters are flagged by correlation alone, the one that
  // gives them most of their variance: the combinations the data do not pin.
  std::vector<int> weak_directions;
};

// `jacobian` is d residual / d x at the solution `x` (physical units), `residuals` the
// residuals there. Scaling: column i times |x_i| (d r / d ln x_i), or `scale[i]` when x_i
// is 0, so the condition number does not depend on units. The covariance is
// s^2 (J_s^T J_s + lambda I)^-1 with lambda = 1e-12 s_max^2: finite when J_s is singular,
// with a variance ~1e12 times the best-pinned one's along a null direction (so the
// correlations there come out near +-1 with the right sign). The covariance's s^2 is at
// least `min_variance`: residuals in units of a stated measurement noise pass 1, so a fit
// that happens to land closer than that noise (s^2 from few degrees of freedom, or
// noiseless synthetic data) does not claim a precision the measurements do not have.
FitDiagnostics diagnose_fit(const Eigen::MatrixXd& jacobian, const Eigen::VectorXd& x, const Eigen::VectorXd& residuals,
                            const Eigen::VectorXd& scale, const IdentifiabilityLimits& limits = {},
                            double min_variance = 0.0);

}  // namespace nvmesim
