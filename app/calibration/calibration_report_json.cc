#include "app/calibration/calibration_report_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
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
          {"max_evaluations", spec.max_evaluations},
          {"noise_model",
           "sigma = sqrt(noise^2 + resolution_sim^2 + resolution_measured^2 + counting^2) per metric: a latency "
           "percentile's histogram bucket width (the simulator's, and the measurement's where its file says), "
           "1/sqrt(n) of a rate counted over n events; residuals ln(simulated / measured) / sigma"},
          {"uncertainty",
           "profile likelihood: each parameter stepped from the best fit, the others refitted, until the least cost "
           "rises by the chi-square threshold (95%, one degree of freedom, times max(1, s^2)) or the bound"}};
}

json end_kind(const ProfileEnd& e) { return e.closed ? "profile" : "bound"; }

// A vector over the parameters as text, skipping (near) zeros: a covector as a sum
// ("/host/a + 0.50 /host/b"), a direction as signed steps ("+1.00 /host/a -1.00 /host/b").
std::string terms_text(const CalibrationSpec& spec, const Eigen::VectorXd& v, bool covector) {
  std::string out;
  for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
    const double c = v[static_cast<Eigen::Index>(i)];
    if (std::abs(c) < 0.005) continue;
    char buf[48];
    if (covector) {
      const char* sign = out.empty() ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
      if (std::abs(std::abs(c) - 1) < 0.005) std::snprintf(buf, sizeof buf, "%s", sign);
      else std::snprintf(buf, sizeof buf, "%s%.2f ", sign, std::abs(c));
    } else {
      std::snprintf(buf, sizeof buf, "%s%+.2f ", out.empty() ? "" : " ", c);
    }
    out += buf + spec.parameters[i].path;
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
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
    const ParameterProfile& prof = fit.profile.parameters[i];
    const bool outside = p.physical_range && (v < p.physical_range->lo || v > p.physical_range->hi);
    json pj = {{"path", p.path},
               {"value", p.integer ? json(static_cast<int64_t>(std::llround(v))) : json(v)},
               {"std_error", finite_or_null(se)},
               {"interval", {std::max(p.bound.lo, v - 2 * se), std::min(p.bound.hi, v + 2 * se)}},
               {"profile_interval", {prof.lower.value, prof.upper.value}},
               {"profile_interval_ends", {end_kind(prof.lower), end_kind(prof.upper)}},
               {"feasible_range", {flo, fhi}},
               {"bounds", {p.bound.lo, p.bound.hi}},
               {"start", fit.starts[0][ii]},
               {"identifiable", prof.identifiable()},
               {"identifiable_by_jacobian", !diag.unidentifiable[i]},
               {"physical_range", p.physical_range ? json::array({p.physical_range->lo, p.physical_range->hi})
                                                   : json(nullptr)},
               {"outside_physical_range", outside}};
    json points = json::array();
    for (const ProfilePoint& q : prof.points) points.push_back({q.at, q.delta});
    pj["profile_points"] = points;
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

// The profile likelihood's verdicts: the threshold, the combinations of the parameters not
// identifiable alone, and one sentence per parameter or combination.
json uncertainty_json(const CalibrationSpec& spec, const CalibrationFit& fit) {
  const ProfileLikelihood& pl = fit.profile;
  json combos = json::array();
  json statements = json::array();
  for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
    const ParameterProfile& prof = pl.parameters[i];
    const std::string& path = spec.parameters[i].path;
    if (prof.identifiable())
      statements.push_back(path + " = " + number(fit.best_fit().x[static_cast<Eigen::Index>(i)]) + " (95%: " +
                           number(prof.lower.value) + " .. " + number(prof.upper.value) + ")");
    else if (prof.lower.closed || prof.upper.closed)
      statements.push_back(path + (prof.lower.closed ? " >= " + number(prof.lower.value) : " <= " + number(prof.upper.value)) +
                           " (95%; the other end is its bound: not identifiable alone)");
    else
      statements.push_back(path + " is not identifiable: the least cost stays within " + number(pl.threshold) +
                           " of the best fit over its bounds");
  }
  for (const CombinationProfile& c : pl.combinations) {
    json terms = json::object(), direction = json::object();
    for (int g : c.group) {
      terms[spec.parameters[static_cast<std::size_t>(g)].path] = c.coefficients[g];
      direction[spec.parameters[static_cast<std::size_t>(g)].path] = c.direction[g];
    }
    std::string text;
    if (c.pinned()) {
      text = terms_text(spec, c.coefficients, true) + " = " + number(c.value) + " +- " + number(c.std_error) +
             " (1 s.e.; 95%: " + number(c.lower.value) + " .. " + number(c.upper.value) + ")";
    } else {
      std::string what = "moving along " + terms_text(spec, c.direction, false);
      if (c.group.size() == 2) {
        const double a = c.direction[c.group[0]], b = c.direction[c.group[1]];
        what = std::string(a * b < 0 ? "the difference" : "the sum") + " (" + terms_text(spec, c.direction, false) + ")";
      }
      text = what + " is not identifiable: " +
             (c.capped ? std::string("its own profile closes, but the parameters' profiles do not (the cost is "
                                     "rugged along it)")
                       : "the least cost stays within " + number(pl.threshold) +
                             (c.lower.closed || c.upper.closed ? " on one side" : " on both sides") + " up to the bounds");
    }
    statements.push_back(text);
    combos.push_back({{"coefficients", terms},
                      {"direction", direction},
                      {"value", c.value},
                      {"std_error", finite_or_null(c.std_error)},
                      {"profile_interval", {c.lower.value, c.upper.value}},
                      {"profile_interval_ends", {end_kind(c.lower), end_kind(c.upper)}},
                      {"pinned", c.pinned()},
                      {"capped", c.capped},
                      {"profile_points", [&] {
                         json pts = json::array();
                         for (const ProfilePoint& q : c.points) pts.push_back({q.at, q.delta});
                         return pts;
                       }()},
                      {"text", text}});
  }
  return {{"confidence", 0.95},
          {"threshold", pl.threshold},
          {"combinations", combos},
          {"statements", statements},
          {"evaluations", {{"fit", fit.fit_evaluations},
                           {"jacobian", fit.jacobian_evaluations},
                           {"profile", pl.evaluations},
                           {"feasible_set", fit.evaluations.size()}}}};
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
      const MetricNoise& noise = fit.noise[r].at(k);
      json mj = {{"metric", k},
                 {"measured", v},
                 {"simulated", s},
                 {"error", s / v - 1},
                 {"sigma", noise.total()},
                 {"noise", {{"stated", noise.stated},
                            {"sim_resolution", noise.sim_resolution},
                            {"measured_resolution", noise.measured_resolution},
                            {"counting", noise.counting}}},
                 {"residual", std::log(std::max(s, v * 1e-6) / v) / noise.total()},
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
  report["uncertainty"] = uncertainty_json(spec, fit);
  json outside = json::array();
  for (const json& p : report["parameters"])
    if (p["outside_physical_range"].get<bool>()) outside.push_back(p["path"]);
  report["outside_physical_range"] = outside;
  report["starts"] = starts_json(spec, fit);
  report["feasible_set"] = feasible_set_json(spec, fit);
  add_runs(report, spec, fit);
  return report;
}

}  // namespace nvmesim
