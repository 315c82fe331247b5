#include "app/calibration_report_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

namespace nvmesim {
namespace {

using nlohmann::json;

// A value for JSON: infinities and NaN have no JSON spelling, so they become null.
json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json method_json(const CalibrationSpec& spec) {
  return {{"solver", "Eigen unsupported LevenbergMarquardt"},
          {"residuals", "ln(simulated / measured) / noise, per fitting run and metric"},
          {"bounds", "x = lo + (hi - lo) (1 + sin u) / 2 over an unbounded u"},
          {"jacobian", "forward differences, step fd_step * (max - min) (backwards at the upper bound)"},
          {"fd_step", spec.fd_step},
          {"seed", spec.seed},
          {"starts", spec.starts},
          {"start_seed", spec.start_seed},
          {"max_evaluations", spec.max_evaluations}};
}

json parameters_json(const CalibrationSpec& spec, const CalibrationFit& fit) {
  const FitDiagnostics& diag = fit.diag;
  json params = json::array();
  for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
    const auto ii = static_cast<Eigen::Index>(i);
    const auto& p = spec.parameters[i];
    double v = fit.best_fit().x[ii], se = diag.std_error[ii];
    double flo = v, fhi = v;
    for (std::size_t e : fit.feasible) {
      flo = std::min(flo, fit.evaluations[e].x[ii]);
      fhi = std::max(fhi, fit.evaluations[e].x[ii]);
    }
    json pj = {{"path", p.path},
               {"value", p.integer ? json(static_cast<int64_t>(std::llround(v))) : json(v)},
               {"std_error", finite_or_null(se)},
               {"interval", {std::max(p.bound.lo, v - 2 * se), std::min(p.bound.hi, v + 2 * se)}},
               {"feasible_range", {flo, fhi}},
               {"bounds", {p.bound.lo, p.bound.hi}},
               {"start", fit.starts[0][ii]},
               {"identifiable", !diag.unidentifiable[i]}};
    params.push_back(pj);
  }
  return params;
}

// The correlation matrix, the singular values, the condition number and the directions
// the data do not pin.
void add_identifiability(json& report, const CalibrationSpec& spec, const FitDiagnostics& diag) {
  const std::size_t n = spec.parameters.size();
  json corr = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    json row = json::array();
    for (std::size_t j = 0; j < n; ++j)
      row.push_back(finite_or_null(diag.correlation(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j))));
    corr.push_back(row);
  }
  report["correlation"] = corr;
  json sv = json::array();
  for (Eigen::Index k = 0; k < diag.singular_values.size(); ++k) sv.push_back(diag.singular_values[k]);
  report["singular_values"] = sv;
  report["condition"] = finite_or_null(diag.condition);
  json weak = json::array();
  for (int k : diag.weak_directions) {
    json dir = json::object();
    for (std::size_t i = 0; i < n; ++i)
      dir[spec.parameters[i].path] = diag.right_singular_vectors(static_cast<Eigen::Index>(i), k);
    weak.push_back({{"singular_value", diag.singular_values[k]}, {"direction", dir}});
  }
  report["unidentified_directions"] = weak;
}

json starts_json(const CalibrationSpec& spec, const CalibrationFit& fit) {
  json starts_j = json::array();
  for (std::size_t s = 0; s < fit.fits.size(); ++s) {
    json sj = {{"cost", fit.fits[s].cost}, {"evaluations", fit.fits[s].evaluations}, {"status", fit.fits[s].status}};
    for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
      sj["start"][spec.parameters[i].path] = fit.starts[s][static_cast<Eigen::Index>(i)];
      sj["end"][spec.parameters[i].path] = fit.fits[s].x[static_cast<Eigen::Index>(i)];
    }
    starts_j.push_back(sj);
  }
  return starts_j;
}

json feasible_set_json(const CalibrationSpec& spec, const CalibrationFit& fit) {
  json members = json::array();
  for (std::size_t m : fit.feasible) {
    const Evaluation& e = fit.evaluations[m];
    json mj = {{"max_fit_error", e.max_fit_error}, {"meets_tolerance", e.feasible}};
    for (std::size_t i = 0; i < spec.parameters.size(); ++i)
      mj["parameters"][spec.parameters[i].path] = e.x[static_cast<Eigen::Index>(i)];
    members.push_back(mj);
  }
  return {{"tolerance", spec.tolerance},
          {"rule", "every fitting metric within max(tolerance, 2 x its run's noise) of the measurement"},
          {"candidates", fit.evaluations.size()},
          {"best_fit_meets_tolerance", fit.at_best().feasible},
          {"members", members}};
}

// Every run's metrics: measured, simulated at the best fit, the prediction interval over
// the feasible set; and the held-out errors.
void add_runs(json& report, const CalibrationSpec& spec, const CalibrationFit& fit) {
  json runs = json::array();
  std::map<std::string, std::vector<double>> held_err;
  int held_points = 0, held_inside = 0;
  for (std::size_t r = 0; r < spec.runs.size(); ++r) {
    const CalibrationRun& run = spec.runs[r];
    json rj = {{"name", run.name}, {"role", run.fit ? "fit" : "holdout"}, {"source", run.source}, {"noise", run.noise}};
    json ms = json::array();
    for (const auto& [k, v] : run.measured) {
      double s = fit.at_best().metrics[r].at(k);
      double plo = s, phi = s;
      for (std::size_t e : fit.feasible) {
        plo = std::min(plo, fit.evaluations[e].metrics[r].at(k));
        phi = std::max(phi, fit.evaluations[e].metrics[r].at(k));
      }
      auto range = run.measured_range.find(k);
      const double mlo = range != run.measured_range.end() ? range->second.first : v;
      const double mhi = range != run.measured_range.end() ? range->second.second : v;
      bool inside = mhi >= plo && mlo <= phi;
      json mj = {{"metric", k},
                 {"measured", v},
                 {"simulated", s},
                 {"error", s / v - 1},
                 {"prediction_interval", {plo, phi}},
                 {"inside", inside}};
      if (range != run.measured_range.end()) mj["measured_range"] = {mlo, mhi};
      ms.push_back(mj);
      if (!run.fit) {
        held_err[k].push_back(std::abs(s / v - 1));
        ++held_points;
        held_inside += inside ? 1 : 0;
      }
    }
    rj["metrics"] = ms;
    runs.push_back(rj);
  }
  report["runs"] = runs;
  json held = {{"points", held_points}, {"inside_prediction_interval", held_inside}};
  for (const auto& [k, errs] : held_err) {
    double sum = 0;
    int within = 0;
    for (double e : errs) {
      sum += e;
      within += e <= 0.10 ? 1 : 0;
    }
    held["mape_pct"][k] = 100 * sum / static_cast<double>(errs.size());
    held["within_10pct"][k] = 100.0 * within / static_cast<double>(errs.size());
  }
  report["held_out"] = held;
}

}  // namespace

json calibration_report_json(const CalibrationSpec& spec, const std::string& fitted_on, const CalibrationFit& fit) {
  json report;
  report["format"] = "nvmesim-calibration/1";
  report["name"] = spec.name;
  report["fitted_on"] = fitted_on;
  report["method"] = method_json(spec);
  report["residual_variance"] = fit.diag.residual_variance;
  report["residual_count"] = fit.diag.residuals;
  report["cost"] = fit.best_fit().cost;
  report["best_start"] = fit.best;
  report["parameters"] = parameters_json(spec, fit);
  add_identifiability(report, spec, fit.diag);
  report["starts"] = starts_json(spec, fit);
  report["feasible_set"] = feasible_set_json(spec, fit);
  add_runs(report, spec, fit);
  return report;
}

}  // namespace nvmesim
