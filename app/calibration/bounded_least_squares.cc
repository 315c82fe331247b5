#include "app/calibration/bounded_least_squares.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

#include <unsupported/Eigen/NonLinearOptimization>

#include "sim/rng.h"

namespace nvmesim {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// The sin mapping of an unbounded u onto [lo, hi], its inverse and derivative.
double to_x(double u, const ParamBound& b) { return b.lo + (b.hi - b.lo) * (1.0 + std::sin(u)) / 2.0; }
double to_u(double x, const ParamBound& b) {
  double s = 2.0 * (std::clamp(x, b.lo, b.hi) - b.lo) / (b.hi - b.lo) - 1.0;
  return std::asin(std::clamp(s, -1.0, 1.0));
}
double dx_du(double u, const ParamBound& b) { return (b.hi - b.lo) * std::cos(u) / 2.0; }

// What Eigen's LM calls: residuals and Jacobian in u. Remembers the last point, because LM
// asks for df at the point whose residuals it has just computed.
struct UnboundedProblem {
  const ResidualFn& f;
  const std::vector<ParamBound>& bounds;
  const LsqOptions& opts;
  Eigen::Index m;
  int evaluations = 0;
  VectorXd last_u, last_f;

  VectorXd x_of(const VectorXd& u) const {
    VectorXd x(u.size());
    for (Eigen::Index i = 0; i < u.size(); ++i) x[i] = to_x(u[i], bounds[i]);
    return x;
  }
  const VectorXd& eval(const VectorXd& u) {
    if (last_u.size() != u.size() || last_u != u) {
      last_f = f(x_of(u));
      ++evaluations;
      last_u = u;
    }
    return last_f;
  }
  int values() const { return static_cast<int>(m); }
  int operator()(const VectorXd& u, VectorXd& fvec) {
    if (evaluations >= opts.max_evaluations) return -1;  // LM stops: UserAsked
    fvec = eval(u);
    return 0;
  }
  int df(const VectorXd& u, MatrixXd& fjac) {
    if (evaluations + u.size() >= opts.max_evaluations) return -1;
    VectorXd x = x_of(u);
    MatrixXd jx = forward_jacobian(f, x, eval(u), bounds, opts.rel_step, &evaluations);
    for (Eigen::Index i = 0; i < u.size(); ++i) jx.col(i) *= dx_du(u[i], bounds[i]);
    fjac = jx;
    return 0;
  }
};

}  // namespace

MatrixXd forward_jacobian(const ResidualFn& f, const VectorXd& x, const VectorXd& fx,
                          const std::vector<ParamBound>& bounds, double rel_step, int* evaluations) {
  MatrixXd j(fx.size(), x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const ParamBound& b = bounds[i];
    double h = rel_step * (b.hi - b.lo);
    if (x[i] + h > b.hi) h = -h;  // backwards at the upper bound
    VectorXd xp = x;
    xp[i] += h;
    j.col(i) = (f(xp) - fx) / h;
    if (evaluations) ++*evaluations;
  }
  return j;
}

LsqResult fit_bounded(const ResidualFn& f, const std::vector<ParamBound>& bounds, const VectorXd& start,
                      const LsqOptions& opts) {
  assert(static_cast<std::size_t>(start.size()) == bounds.size());
  VectorXd u(start.size());
  for (Eigen::Index i = 0; i < start.size(); ++i) u[i] = to_u(start[i], bounds[i]);
  UnboundedProblem p{f, bounds, opts, 0, 0, {}, {}};
  p.m = p.eval(u).size();
  // Fewer residuals than parameters: Eigen's LM needs m >= n, so pad with zeros.
  if (p.m < u.size()) {
    const ResidualFn padded = [&f, n = u.size()](const VectorXd& x) {
      VectorXd v = VectorXd::Zero(n);
      VectorXd fx = f(x);
      v.head(fx.size()) = fx;
      return v;
    };
    LsqResult inner = fit_bounded(padded, bounds, start, opts);
    inner.residuals = inner.residuals.head(p.m).eval();
    return inner;
  }
  Eigen::LevenbergMarquardt<UnboundedProblem> lm(p);
  lm.parameters.xtol = opts.xtol;
  lm.parameters.ftol = opts.ftol;
  lm.parameters.maxfev = opts.max_evaluations;
  LsqResult r;
  r.status = static_cast<int>(lm.minimize(u));
  r.x = p.x_of(u);
  r.residuals = p.eval(u);
  r.cost = r.residuals.squaredNorm();
  r.evaluations = p.evaluations;
  return r;
}

std::vector<VectorXd> latin_hypercube(const std::vector<ParamBound>& bounds, int n, uint64_t seed) {
  std::vector<VectorXd> pts(n, VectorXd(static_cast<Eigen::Index>(bounds.size())));
  for (std::size_t d = 0; d < bounds.size(); ++d) {
    sim::Rng rng(seed, sim::stream_key("latin_hypercube", d));
    std::vector<int> strata(n);
    std::iota(strata.begin(), strata.end(), 0);
    for (int i = n - 1; i > 0; --i) std::swap(strata[i], strata[rng.below(i + 1)]);  // Fisher-Yates
    const ParamBound& b = bounds[d];
    bool logscale = b.lo > 0 && b.hi / b.lo > 10;
    double lo = logscale ? std::log(b.lo) : b.lo, hi = logscale ? std::log(b.hi) : b.hi;
    for (int i = 0; i < n; ++i) {
      double v = lo + (hi - lo) * (strata[i] + rng.uniform()) / n;
      pts[i][static_cast<Eigen::Index>(d)] = std::clamp(logscale ? std::exp(v) : v, b.lo, b.hi);
    }
  }
  return pts;
}

}  // namespace nvmesim
