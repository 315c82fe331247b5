#include "app/calibration/calibrate.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include "app/calibration/bounded_least_squares.h"
#include "app/calibration/calibration_fit.h"
#include "app/calibration/calibration_report_json.h"
#include "app/calibration/calibration_simulator.h"
#include "app/calibration/feasible_set.h"
#include "app/calibration/fit_diagnostics.h"
#include "app/calibration/fitted_profiles.h"

namespace nvmesim {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using nlohmann::json;

// The log ratio of simulated to measured, floored so that a run that did nothing is a
// large finite residual rather than -inf.
double log_ratio(double sim, double measured) { return std::log(std::max(sim, measured * 1e-6) / measured); }

// The starts: the profile's own values (as the first fitting run's scenario has them,
// clamped into the box), then `starts - 1` points of a Latin hypercube over the box.
std::vector<VectorXd> fit_starts(const CalibrationSpec& spec, const std::vector<ParamBound>& bounds,
                                 const json& first) {
  const std::size_t n = spec.parameters.size();
  VectorXd x0(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) {
    std::string ptr = parameter_pointers(first, spec.parameters[i].path)[0];
    x0[static_cast<Eigen::Index>(i)] = std::clamp(first.at(json::json_pointer(ptr)).get<double>(), bounds[i].lo, bounds[i].hi);
  }
  std::vector<VectorXd> starts = {x0};
  if (spec.starts > 1)
    for (const VectorXd& p : latin_hypercube(bounds, spec.starts - 1, spec.start_seed)) starts.push_back(p);
  return starts;
}

// The noise of each of `run`'s measured metrics, its weights fixed from the measured values
// and the run's simulated window at `start`.
std::map<std::string, MetricNoise> run_noise(CalibrationSimulator& sim, const CalibrationRun& run,
                                             const VectorXd& start) {
  RunResolution res;
  res.stated = run.noise;
  res.latency_histogram = run.latency_histogram;
  res.measured_ios = run.measured_ios;
  res.measured_irqs_per_io = run.measured_irqs_per_io;
  auto loaded = sim.load(run, start);
  if (const auto* ls = std::get_if<LoadedScenario>(&loaded))
    res.sim_ios = run.measured_iops * static_cast<double>(ls->scenario.duration.count_ns()) / 1e9;
  std::map<std::string, MetricNoise> by_metric;
  for (const auto& [k, v] : run.measured) by_metric[k] = metric_noise(k, v, res);
  return by_metric;
}

// The feasible set of a fit whose best fit and diagnostics are known: the starts' ends and
// `spec.neighbourhood` points sampled around the best fit, each run on the fitting runs.
void feasible_set(CalibrationSimulator& sim, const CalibrationSpec& spec, const std::vector<ParamBound>& bounds,
                  const VectorXd& scale, const std::function<void(const std::string&)>& say, CalibrationFit& fit) {
  const LsqResult& best = fit.best_fit();
  std::vector<VectorXd> candidates;
  for (const auto& f : fit.fits) candidates.push_back(f.x);
  if (spec.neighbourhood > 0 && !spec.parameters.empty())
    for (VectorXd& x : neighbourhood(best.x, fit.diag, bounds, scale, spec.neighbourhood, spec.start_seed + 1))
      candidates.push_back(std::move(x));
  say("feasible set: " + std::to_string(candidates.size()) + " candidates");
  fit.evaluations = evaluate_candidates(sim, spec, candidates, fit.fitting);
  for (std::size_t e = 0; e < fit.evaluations.size(); ++e)
    if (fit.evaluations[e].feasible) fit.feasible.push_back(e);
  if (!fit.at_best().feasible) fit.feasible.insert(fit.feasible.begin(), fit.best);  // never empty
}

}  // namespace

std::string utc_date_today() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::variant<CalibrationOutcome, InputError> calibrate(const CalibrationSpec& spec, const std::string& fitted_on,
                                                       const std::function<void(const std::string&)>& progress) {
  const std::size_t n = spec.parameters.size();
  const auto say = [&](const std::string& s) {
    if (progress) progress(s);
  };
  CalibrationSimulator sim(spec);
  std::vector<ParamBound> bounds;
  for (const auto& p : spec.parameters) bounds.push_back(p.bound);
  if (auto e = sim.check_corners(bounds)) return *e;

  CalibrationFit fit;
  for (std::size_t i = 0; i < spec.runs.size(); ++i) (spec.runs[i].fit ? fit.fitting : fit.held_out).push_back(i);

  // 1. The noise of every measured metric (app/calibration/measurement_noise.h), its weights fixed
  // from the measured values and each run's simulated window at the first start.
  fit.starts = fit_starts(spec, bounds, spec.runs[fit.fitting[0]].scenario);
  for (const CalibrationRun& run : spec.runs) fit.noise.push_back(run_noise(sim, run, fit.starts[0]));

  // 2. Residuals ln(simulated / measured) / sigma of every fitting run and metric.
  const ResidualFn residuals = [&](const VectorXd& x) {
    std::vector<double> r;
    for (std::size_t i : fit.fitting) {
      const CalibrationRun& run = spec.runs[i];
      MetricValues m = sim.metrics(run, x);
      for (const auto& [k, v] : run.measured) r.push_back(log_ratio(m[k], v) / fit.noise[i].at(k).total());
    }
    return VectorXd(Eigen::Map<VectorXd>(r.data(), static_cast<Eigen::Index>(r.size())));
  };

  // 3. A bounded Levenberg-Marquardt fit from every start; the best has the least cost.
  LsqOptions lo;
  lo.rel_step = spec.fd_step;
  lo.max_evaluations = spec.max_evaluations;
  for (std::size_t s = 0; s < fit.starts.size(); ++s) {
    say("start " + std::to_string(s + 1) + "/" + std::to_string(fit.starts.size()));
    fit.fits.push_back(fit_bounded(residuals, bounds, fit.starts[s], lo));
    fit.fit_evaluations += fit.fits.back().evaluations;
    if (fit.fits.back().cost < fit.fits[fit.best].cost) fit.best = s;
  }
  const LsqResult& best = fit.best_fit();

  // 4. What the Jacobian says: standard errors, correlations, singular values, flags.
  say("diagnostics at the best fit");
  MatrixXd jac = forward_jacobian(residuals, best.x, best.residuals, bounds, spec.fd_step, &fit.jacobian_evaluations);
  VectorXd scale(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) scale[static_cast<Eigen::Index>(i)] = bounds[i].hi - bounds[i].lo;
  // Residuals are in units of their noise: s^2 below 1 would claim more than the noise allows.
  fit.diag = diagnose_fit(jac, best.x, best.residuals, scale, {}, 1.0);

  // 5. What the cost says: the profile likelihood of each parameter, and of the
  // combinations of those it does not pin alone (app/calibration/profile_likelihood.h).
  say("profile likelihood");
  ProfileOptions po;
  po.rel_step = spec.fd_step;
  fit.profile = profile_likelihood(residuals, bounds, best, jac, fit.diag, po);

  // 6. The feasible set: the starts' ends and a sample of the best fit's neighbourhood.
  feasible_set(sim, spec, bounds, scale, say, fit);

  // 7. The report and the fitted profiles.
  return CalibrationOutcome{calibration_report_json(spec, fitted_on, fit), fitted_profiles(spec, fitted_on, fit)};
}

}  // namespace nvmesim
