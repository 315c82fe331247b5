// The fitter and its diagnostics on analytic functions with known answers.
#include "app/calibration/bounded_least_squares.h"

#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "app/calibration/fit_diagnostics.h"

namespace nvmesim {
namespace {

using Eigen::VectorXd;

const std::vector<double> kT = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};

// y = a exp(-b t), residuals log(model / data) as calibrate uses.
ResidualFn decay_residuals(double a, double b) {
  return [a, b](const VectorXd& x) {
    VectorXd r(kT.size());
    for (std::size_t i = 0; i < kT.size(); ++i)
      r[i] = std::log(x[0] * std::exp(-x[1] * kT[i])) - std::log(a * std::exp(-b * kT[i]));
    return r;
  };
}

TEST(BoundedLeastSquares, RecoversExponentialDecayFromEveryStart) {
  std::vector<ParamBound> bounds = {{0.1, 20.0}, {0.01, 5.0}};
  for (const VectorXd& start : latin_hypercube(bounds, 4, 11)) {
    LsqResult r = fit_bounded(decay_residuals(7.0, 0.8), bounds, start);
    EXPECT_NEAR(r.x[0], 7.0, 7.0 * 1e-3) << "start " << start.transpose();
    EXPECT_NEAR(r.x[1], 0.8, 0.8 * 1e-3) << "start " << start.transpose();
    EXPECT_LT(r.cost, 1e-8);
  }
}

TEST(BoundedLeastSquares, StopsAtTheBoundWhenTheMinimumLiesOutside) {
  std::vector<ParamBound> bounds = {{0.1, 100.0}, {0.01, 0.5}};  // true b = 0.8 is above
  LsqResult r = fit_bounded(decay_residuals(7.0, 0.8), bounds, VectorXd::Constant(2, 0.3));
  EXPECT_GE(r.x[1], 0.5 * (1 - 1e-6));
  EXPECT_LE(r.x[1], 0.5);
  EXPECT_GT(r.cost, 1e-3);  // the data cannot be matched inside the box
}

TEST(BoundedLeastSquares, EvaluationBudgetIsHonoured) {
  std::vector<ParamBound> bounds = {{0.1, 20.0}, {0.01, 5.0}};
  LsqOptions opts;
  opts.max_evaluations = 7;
  LsqResult r = fit_bounded(decay_residuals(7.0, 0.8), bounds, VectorXd::Constant(2, 1.0), opts);
  EXPECT_LE(r.evaluations, 8);  // the budget plus the final residuals at the returned point
}

TEST(FitDiagnostics, StandardErrorsOfALinearModelMatchOrdinaryLeastSquares) {
  // y = a + b t with fixed "noise" e: the covariance is s^2 (X^T X)^-1 exactly.
  const std::vector<double> e = {0.3, -0.2, 0.1, -0.4, 0.25, 0.05, -0.15, 0.2};
  ResidualFn f = [&](const VectorXd& x) {
    VectorXd r(kT.size());
    for (std::size_t i = 0; i < kT.size(); ++i) r[i] = x[0] + x[1] * kT[i] - (2.0 + 0.5 * kT[i] + e[i]);
    return r;
  };
  std::vector<ParamBound> bounds = {{-10, 10}, {-10, 10}};
  LsqResult r = fit_bounded(f, bounds, VectorXd::Constant(2, 1.0));
  Eigen::MatrixXd j = forward_jacobian(f, r.x, r.residuals, bounds, 0.02);
  FitDiagnostics d = diagnose_fit(j, r.x, r.residuals, VectorXd::Constant(2, 1.0));

  Eigen::MatrixXd X(kT.size(), 2);
  VectorXd y(kT.size());
  for (std::size_t i = 0; i < kT.size(); ++i) {
    X(i, 0) = 1;
    X(i, 1) = kT[i];
    y[i] = 2.0 + 0.5 * kT[i] + e[i];
  }
  VectorXd beta = (X.transpose() * X).ldlt().solve(X.transpose() * y);
  double s2 = (X * beta - y).squaredNorm() / (kT.size() - 2);
  Eigen::MatrixXd cov = s2 * (X.transpose() * X).inverse();
  EXPECT_NEAR(r.x[0], beta[0], 1e-6);
  EXPECT_NEAR(r.x[1], beta[1], 1e-6);
  EXPECT_NEAR(d.residual_variance, s2, 1e-9);
  EXPECT_NEAR(d.std_error[0], std::sqrt(cov(0, 0)), 1e-6);
  EXPECT_NEAR(d.std_error[1], std::sqrt(cov(1, 1)), 1e-6);
  EXPECT_NEAR(d.correlation(0, 1), cov(0, 1) / std::sqrt(cov(0, 0) * cov(1, 1)), 1e-6);
  EXPECT_FALSE(d.unidentifiable[0]);
  EXPECT_FALSE(d.unidentifiable[1]);
  EXPECT_TRUE(d.weak_directions.empty());
}

TEST(FitDiagnostics, TwoParametersSeenOnlyAsTheirSumAreFlagged) {
  // y = (p + q) t + c: p and q are perfectly (negatively) correlated; c is pinned.
  ResidualFn f = [](const VectorXd& x) {
    VectorXd r(kT.size());
    for (std::size_t i = 0; i < kT.size(); ++i) r[i] = std::log(((x[0] + x[1]) * kT[i] + x[2]) / (3.0 * kT[i] + 1.0));
    return r;
  };
  std::vector<ParamBound> bounds = {{0.1, 5}, {0.1, 5}, {0.1, 5}};
  LsqOptions opts;
  opts.xtol = 1e-10;
  LsqResult r = fit_bounded(f, bounds, (VectorXd(3) << 0.5, 0.7, 2.0).finished(), opts);
  EXPECT_NEAR(r.x[0] + r.x[1], 3.0, 1e-3);
  EXPECT_NEAR(r.x[2], 1.0, 1e-3);
  Eigen::MatrixXd j = forward_jacobian(f, r.x, r.residuals, bounds, 0.02);
  FitDiagnostics d = diagnose_fit(j, r.x, r.residuals, VectorXd::Constant(3, 1.0));
  EXPECT_TRUE(d.unidentifiable[0]);
  EXPECT_TRUE(d.unidentifiable[1]);
  EXPECT_FALSE(d.unidentifiable[2]);
  EXPECT_LT(d.correlation(0, 1), -0.95);
  EXPECT_LT(std::abs(d.correlation(0, 2)), 0.95);
  // Forward differences with a step proportional to each value see p and q through
  // slightly different chords, so the condition is large but finite: the correlation flags.
  EXPECT_GT(d.condition, 1e3);
  ASSERT_EQ(d.weak_directions.size(), 1u);
  // The unpinned direction (in ln-parameter space) moves p against q and leaves c alone.
  Eigen::VectorXd v = d.right_singular_vectors.col(d.weak_directions[0]);
  EXPECT_LT(v[0] * v[1], 0);
  EXPECT_NEAR(v[2], 0, 1e-3);
}

TEST(LatinHypercube, UsesEveryStratumOnceAndIsDeterministic) {
  std::vector<ParamBound> bounds = {{0, 1}, {100, 200}};
  auto a = latin_hypercube(bounds, 5, 3), b = latin_hypercube(bounds, 5, 3);
  for (std::size_t d = 0; d < 2; ++d) {
    std::set<int> strata;
    for (int i = 0; i < 5; ++i) {
      double f = (a[i][d] - bounds[d].lo) / (bounds[d].hi - bounds[d].lo);
      strata.insert(static_cast<int>(f * 5));
      EXPECT_EQ(a[i][d], b[i][d]);
    }
    EXPECT_EQ(strata.size(), 5u);
  }
  EXPECT_NE(latin_hypercube(bounds, 5, 4)[0][0], a[0][0]);
}

}  // namespace
}  // namespace nvmesim
