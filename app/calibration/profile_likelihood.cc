#include "app/calibration/profile_likelihood.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace nvmesim {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using Eigen::Index;

constexpr double kInf = std::numeric_limits<double>::infinity();

// A warm start strictly inside the box: the sin mapping cannot move a value that starts
// exactly on a bound (dx/du is 0 there).
double inside(double v, const ParamBound& b) {
  const double margin = 1e-3 * (b.hi - b.lo);
  return std::clamp(v, b.lo + margin, b.hi - margin);
}

// The least cost with every parameter outside `free` as in `x`, the free ones refitted
// from their values in `x` (a warm start); `x` gets the refitted values.
struct Refitter {
  const ResidualFn& f;
  const std::vector<ParamBound>& bounds;
  const ProfileOptions& opts;
  int evaluations = 0;

  double least_cost(VectorXd& x, const std::vector<Index>& free) {
    if (free.empty()) {
      ++evaluations;
      return f(x).squaredNorm();
    }
    std::vector<ParamBound> fb;
    VectorXd start(static_cast<Index>(free.size()));
    for (std::size_t k = 0; k < free.size(); ++k) {
      fb.push_back(bounds[static_cast<std::size_t>(free[k])]);
      start[static_cast<Index>(k)] = inside(x[free[k]], fb.back());
    }
    const VectorXd fixed = x;
    const ResidualFn g = [&](const VectorXd& y) {
      VectorXd full = fixed;
      for (std::size_t k = 0; k < free.size(); ++k) full[free[k]] = y[static_cast<Index>(k)];
      return f(full);
    };
    LsqOptions lo;
    lo.rel_step = opts.rel_step;
    lo.max_evaluations = opts.refit_evaluations > 0 ? opts.refit_evaluations : 12 + 4 * static_cast<int>(free.size());
    LsqResult r = fit_bounded(g, fb, start, lo);
    evaluations += r.evaluations;
    for (std::size_t k = 0; k < free.size(); ++k) x[free[k]] = r.x[static_cast<Index>(k)];
    return r.cost;
  }
};

// One side of a profile: the step s >= 0 at which delta(s) (the least cost's rise) crosses
// `thr`, searched from `first` within [0, reach]. Closed only when a point at or beyond the
// threshold was found; the crossing is interpolated linearly in sqrt(delta) (exact for a
// quadratic profile), and the bracket refined while points remain and neither of its ends
// is near the threshold.
ProfileEnd search_side(const std::function<double(double)>& delta, double first, double reach, double thr,
                       int max_points) {
  if (!(reach > 0)) return {0, false};
  double step = std::isfinite(first) && first > 0 ? std::min(first, reach) : reach;
  double lo = 0, flo = 0;
  for (int k = 0; k < max_points; ++k) {
    const double d = delta(step);
    if (d >= thr) {
      double hi = step, fhi = d;
      const auto crossing = [&] {
        const double a = std::sqrt(std::max(flo, 0.0)), b = std::sqrt(fhi), c = std::sqrt(thr);
        return b > a ? lo + (hi - lo) * (c - a) / (b - a) : hi;
      };
      const auto converged = [&] { return fhi <= 1.5 * thr || flo >= 0.5 * thr; };
      for (++k; k < max_points && !converged(); ++k) {
        // The interpolated crossing, kept off the bracket's ends: a profile that is flat
        // and then steep (a refitted parameter reaching its bound) makes sqrt-linear
        // interpolation creep, and this halves the bracket at worst.
        const double mid = std::clamp(crossing(), lo + 0.25 * (hi - lo), hi - 0.25 * (hi - lo));
        const double dm = delta(mid);
        if (dm >= thr) {
          hi = mid;
          fhi = dm;
        } else {
          lo = mid;
          flo = dm;
        }
      }
      // Not converged: the far end of the bracket, conservatively.
      return {converged() ? crossing() : hi, true};
    }
    lo = step;
    flo = d;
    if (step >= reach) return {reach, false};
    // Quadratic extrapolation to a little past the threshold; faster where it is flat.
    const double next = d > 0.05 * thr ? step * std::sqrt(thr / d) * 1.3 : step * 8;
    step = std::min(std::max(next, step * 1.2), reach);
  }
  return {reach, false};  // out of points: the bound, conservatively
}

// Warm starts for the refits along one side of a profile: the refitted point nearest the
// best fit among those still below the threshold (the valley, not a refit that ran into
// a wall), moved along the linearised valley to the new step.
struct WarmStart {
  const VectorXd& slope;
  double thr;
  double at_step = 0;
  VectorXd x;
  VectorXd start(double step) const { return x + slope * (step - at_step); }
  void seen(double step, const VectorXd& refit, double d) {
    if (d < thr && step > at_step) {
      at_step = step;
      x = refit;
    }
  }
};

// How far x may move along +d (d over every parameter) before leaving the box.
double reach_along(const VectorXd& x, const VectorXd& d, const std::vector<ParamBound>& bounds) {
  double t = kInf;
  for (Index i = 0; i < x.size(); ++i) {
    const ParamBound& b = bounds[static_cast<std::size_t>(i)];
    if (d[i] > 0) t = std::min(t, (b.hi - x[i]) / d[i]);
    if (d[i] < 0) t = std::min(t, (b.lo - x[i]) / d[i]);
  }
  return std::max(t, 0.0);
}

// What every profile of one fit shares: the box, the best fit, the refits, the cost rise
// that closes a side, the first step's scale (sqrt of the chi-square value) and the
// refits a side may take.
struct ProfileContext {
  const std::vector<ParamBound>& bounds;
  const LsqResult& best;
  Refitter& refit;
  double threshold;
  double chi;
  int max_points;
};

// 1. Parameter i: stepped on each side, the others refitted.
ParameterProfile profile_parameter(const ProfileContext& c, const FitDiagnostics& diag, Index i) {
  const Index n = c.best.x.size();
  const LsqResult& best = c.best;
  ParameterProfile prof;
  std::vector<Index> free;
  for (Index j = 0; j < n; ++j)
    if (j != i) free.push_back(j);
  // The linearised valley: the others move by cov(j, i) / cov(i, i) per unit of x_i.
  VectorXd slope = VectorXd::Zero(n);
  const double se = diag.std_error[i];
  for (Index j : free) {
    const double cv = diag.correlation(j, i) * diag.std_error[j] / se;
    slope[j] = std::isfinite(cv) ? cv : 0.0;
  }
  const ParamBound& b = c.bounds[static_cast<std::size_t>(i)];
  for (int side : {-1, +1}) {
    const VectorXd side_slope = slope * side;
    WarmStart warm{side_slope, c.threshold, 0, best.x};
    auto delta = [&](double step) {
      VectorXd x = warm.start(step);
      x[i] = best.x[i] + side * step;
      const double d = c.refit.least_cost(x, free) - best.cost;
      prof.points.push_back({x[i], d});
      warm.seen(step, x, d);
      return d;
    };
    const double reach = side < 0 ? best.x[i] - b.lo : b.hi - best.x[i];
    ProfileEnd e = search_side(delta, 1.25 * c.chi * se, reach, c.threshold, c.max_points);
    e.value = best.x[i] + side * e.value;
    (side < 0 ? prof.lower : prof.upper) = e;
  }
  return prof;
}

// Written with its first coefficient positive: "a + 0.84 b = 962", not "-a - 0.84 b = -962".
void first_coefficient_positive(CombinationProfile& comb, Index first) {
  if (!(comb.coefficients[first] < 0)) return;
  comb.coefficients = -comb.coefficients;
  comb.value = -comb.value;
  std::swap(comb.lower, comb.upper);
  comb.lower.value = -comb.lower.value;
  comb.upper.value = -comb.upper.value;
  for (ProfilePoint& q : comb.points) q.at = -q.at;
}

// The group's parameters (not identifiable alone) scaled by s, the others' response to a
// step of the group (least squares), and what of the group's information is left.
struct GroupDirections {
  const std::vector<Index>& group;
  const std::vector<Index>& others;
  VectorXd s;
  MatrixXd response;
  double variance;
};

// 2. One direction w of the group's information (eigenvalue lambda), profiled on each
// side with the others refitted.
CombinationProfile profile_combination(const ProfileContext& c, const GroupDirections& g, const VectorXd& w,
                                       double lambda) {
  const Index n = c.best.x.size();
  const LsqResult& best = c.best;
  const std::vector<Index>& group = g.group;
  const std::vector<Index>& others = g.others;
  const VectorXd& s = g.s;
  CombinationProfile comb;
  comb.group.assign(group.begin(), group.end());
  VectorXd a = VectorXd::Zero(n), d = VectorXd::Zero(n), shift = VectorXd::Zero(n);
  for (std::size_t k = 0; k < group.size(); ++k) {
    a[group[k]] = w[static_cast<Index>(k)] / s[group[k]];  // a . d = |w|^2 = 1
    d[group[k]] = w[static_cast<Index>(k)] * s[group[k]];
  }
  const VectorXd r = g.response * w;
  for (std::size_t o = 0; o < others.size(); ++o) shift[others[o]] = -r[static_cast<Index>(o)] * s[others[o]];
  const double se = lambda > 0 ? std::sqrt(g.variance / lambda) : kInf;
  const double scale = a.cwiseAbs().maxCoeff();
  for (int side : {-1, +1}) {
    // A member at a bound that this side's step would push out stays there; the
    // others move so that the combination still changes by the step (a fit in a
    // corner of the box, e.g. one of a pair at its lower bound, can still lower
    // their sum with the other).
    VectorXd ds = d;
    for (Index m : group) {
      const ParamBound& b = c.bounds[static_cast<std::size_t>(m)];
      const double tol = 1e-6 * (b.hi - b.lo);
      if ((side * d[m] < 0 && best.x[m] <= b.lo + tol) || (side * d[m] > 0 && best.x[m] >= b.hi - tol)) ds[m] = 0;
    }
    if (a.dot(ds) > 1e-9) ds /= a.dot(ds);
    else ds = d;
    const VectorXd side_shift = shift * side;
    WarmStart warm{side_shift, c.threshold, 0, best.x};
    auto delta = [&](double step) {
      VectorXd x = warm.start(step);
      for (Index m : group) x[m] = best.x[m] + side * step * ds[m];
      const double dc = c.refit.least_cost(x, others) - best.cost;
      comb.points.push_back({(a.dot(best.x) + side * step) / scale, dc});
      warm.seen(step, x, dc);
      return dc;
    };
    ProfileEnd e = search_side(delta, 1.25 * c.chi * se, reach_along(best.x, side * ds, c.bounds), c.threshold,
                               c.max_points);
    e.value = (a.dot(best.x) + side * e.value) / scale;
    (side < 0 ? comb.lower : comb.upper) = e;
  }
  comb.coefficients = a / scale;
  comb.direction = d / d.cwiseAbs().maxCoeff();
  for (Index m : group)
    if (std::abs(comb.direction[m]) > 1e-9) {
      if (comb.direction[m] < 0) comb.direction = -comb.direction;
      break;
    }
  comb.value = a.dot(best.x) / scale;
  comb.std_error = se / scale;
  first_coefficient_positive(comb, group[0]);
  return comb;
}

// 2. The parameters not identifiable alone, if two or more: the directions of their
// information with the others projected out, each profiled with the others refitted.
void profile_combinations(const ProfileContext& c, const MatrixXd& jacobian, double variance, ProfileLikelihood& out) {
  const Index n = c.best.x.size();
  const LsqResult& best = c.best;
  std::vector<Index> group, others;
  for (Index i = 0; i < n; ++i)
    (out.parameters[static_cast<std::size_t>(i)].identifiable() ? others : group).push_back(i);
  if (group.size() < 2) return;
  VectorXd s(n);
  for (Index i = 0; i < n; ++i)
    s[i] = std::abs(best.x[i]) > 0 ? std::abs(best.x[i]) : c.bounds[static_cast<std::size_t>(i)].hi -
                                                               c.bounds[static_cast<std::size_t>(i)].lo;
  const MatrixXd js = jacobian * s.asDiagonal();
  MatrixXd jg(js.rows(), static_cast<Index>(group.size())), jo(js.rows(), static_cast<Index>(others.size()));
  for (std::size_t k = 0; k < group.size(); ++k) jg.col(static_cast<Index>(k)) = js.col(group[k]);
  for (std::size_t k = 0; k < others.size(); ++k) jo.col(static_cast<Index>(k)) = js.col(others[k]);
  // The others' response to a step of the group (least squares), and what is left.
  MatrixXd response = MatrixXd::Zero(static_cast<Index>(others.size()), jg.cols());
  if (!others.empty()) response = jo.completeOrthogonalDecomposition().solve(jg);
  const MatrixXd left = jg - jo * response;
  Eigen::SelfAdjointEigenSolver<MatrixXd> eig(left.transpose() * left);
  const GroupDirections g{group, others, s, response, variance};
  for (Index k = eig.eigenvalues().size() - 1; k >= 0; --k)  // strongest first
    out.combinations.push_back(profile_combination(c, g, eig.eigenvectors().col(k), std::max(eig.eigenvalues()[k], 0.0)));
  // If every direction closed, the parameters would be identifiable alone: they were
  // not, so the weakest direction does not count as pinned.
  bool all = true;
  for (const CombinationProfile& comb : out.combinations) all = all && comb.pinned();
  if (all && !out.combinations.empty()) out.combinations.back().capped = true;
}

}  // namespace

ProfileLikelihood profile_likelihood(const ResidualFn& f, const std::vector<ParamBound>& bounds, const LsqResult& best,
                                     const MatrixXd& jacobian, const FitDiagnostics& diag,
                                     const ProfileOptions& opts) {
  const Index n = best.x.size();
  const double variance = std::max(1.0, diag.residual_variance);
  ProfileLikelihood out;
  out.threshold = opts.threshold * variance;
  Refitter refit{f, bounds, opts, 0};
  const ProfileContext c{bounds, best, refit, out.threshold, std::sqrt(opts.threshold), opts.max_points};
  for (Index i = 0; i < n; ++i) out.parameters.push_back(profile_parameter(c, diag, i));  // 1
  profile_combinations(c, jacobian, variance, out);                                      // 2
  out.evaluations = refit.evaluations;
  return out;
}

}  // namespace nvmesim
