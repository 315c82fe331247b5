#include "app/calibrate.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <sstream>

#include "app/bounded_least_squares.h"
#include "app/fit_diagnostics.h"
#include "app/run.h"
#include "app/scenario_load.h"

namespace nvmesim {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using nlohmann::json;

// A value for JSON: infinities and NaN have no JSON spelling, so they become null.
json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string percent(double rel) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << (rel >= 0 ? "+" : "") << rel * 100 << "%";
  return os.str();
}

std::string number_text(double v) {
  std::ostringstream os;
  os.precision(4);
  os << v;
  return os.str();
}

class Simulator {
 public:
  explicit Simulator(const CalibrationSpec& spec) : spec_(spec) {}

  // The scenario of `run` with the parameters at x, loaded; or why it cannot be.
  LoadResult load(const CalibrationRun& run, const VectorXd& x, const std::string& extra_set = "") const {
    json doc = run.scenario;
    for (std::size_t i = 0; i < spec_.parameters.size(); ++i) {
      const CalibrationParameter& p = spec_.parameters[i];
      double v = x[static_cast<Eigen::Index>(i)];
      for (const std::string& ptr : parameter_pointers(doc, p.path))
        doc[json::json_pointer(ptr)] = p.integer ? json(static_cast<int64_t>(std::llround(v))) : json(v);
    }
    LoadOptions o;
    o.base_dir = run.base_dir;
    o.overrides = run.sets;
    if (!extra_set.empty()) o.overrides.push_back(extra_set);
    o.seed = spec_.seed;
    return load_scenario_json(std::move(doc), o);
  }

  MetricValues metrics(const CalibrationRun& run, const VectorXd& x) const {
    MetricValues m = run_metrics(run, x, "");
    if (!run.ratio_policy.empty()) {
      MetricValues other = run_metrics(run, x, "/policy={\"name\":\"" + run.ratio_policy + "\"}");
      m["iops_ratio"] = m["iops"] > 0 ? other["iops"] / m["iops"] : 0.0;
    }
    return m;
  }

 private:
  MetricValues run_metrics(const CalibrationRun& run, const VectorXd& x, const std::string& extra) const {
    auto loaded = load(run, x, extra);
    // Every corner of the box loaded before the fit (check_box), so this holds.
    const auto& ls = std::get<LoadedScenario>(loaded);
    return metrics_of_results(run_scenario(ls));
  }
  const CalibrationSpec& spec_;
};

// The log ratio of simulated to measured, floored so that a run that did nothing is a
// large finite residual rather than -inf.
double log_ratio(double sim, double measured) { return std::log(std::max(sim, measured * 1e-6) / measured); }

struct Evaluation {
  VectorXd x;
  std::vector<MetricValues> metrics;  // per run (all runs)
  double max_fit_error = 0;           // largest |sim/measured - 1| over fitting metrics
  bool feasible = false;
};

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
  Simulator sim(spec);
  std::vector<ParamBound> bounds;
  for (const auto& p : spec.parameters) bounds.push_back(p.bound);

  // Every run must load at both corners of the box: a bound outside what the loader takes
  // is bad input, found before any fit.
  for (const auto& run : spec.runs)
    for (bool hi : {false, true}) {
      VectorXd corner(static_cast<Eigen::Index>(n));
      for (std::size_t i = 0; i < n; ++i) corner[static_cast<Eigen::Index>(i)] = hi ? bounds[i].hi : bounds[i].lo;
      auto loaded = sim.load(run, corner, run.ratio_policy.empty() ? "" : "/policy={\"name\":\"" + run.ratio_policy + "\"}");
      if (auto* e = std::get_if<InputError>(&loaded))
        return InputError{"/parameters", std::string("at every ") + (hi ? "max" : "min") + ", run \"" + run.name +
                                             "\" does not load: " + e->str()};
    }

  std::vector<std::size_t> fitting, held_out;
  for (std::size_t i = 0; i < spec.runs.size(); ++i) (spec.runs[i].fit ? fitting : held_out).push_back(i);

  const ResidualFn residuals = [&](const VectorXd& x) {
    std::vector<double> r;
    for (std::size_t i : fitting) {
      const CalibrationRun& run = spec.runs[i];
      MetricValues m = sim.metrics(run, x);
      for (const auto& [k, v] : run.measured) r.push_back(log_ratio(m[k], v) / run.noise);
    }
    return VectorXd(Eigen::Map<VectorXd>(r.data(), static_cast<Eigen::Index>(r.size())));
  };

  // ---- starts: the profile's own values, then a Latin hypercube over the box ----------
  VectorXd x0(static_cast<Eigen::Index>(n));
  const json& first = spec.runs[fitting[0]].scenario;
  for (std::size_t i = 0; i < n; ++i) {
    std::string ptr = parameter_pointers(first, spec.parameters[i].path)[0];
    x0[static_cast<Eigen::Index>(i)] = std::clamp(first.at(json::json_pointer(ptr)).get<double>(), bounds[i].lo, bounds[i].hi);
  }
  std::vector<VectorXd> starts = {x0};
  if (spec.starts > 1)
    for (const VectorXd& p : latin_hypercube(bounds, spec.starts - 1, spec.start_seed)) starts.push_back(p);

  LsqOptions lo;
  lo.rel_step = spec.fd_step;
  lo.max_evaluations = spec.max_evaluations;
  std::vector<LsqResult> fits;
  std::size_t best = 0;
  for (std::size_t s = 0; s < starts.size(); ++s) {
    say("start " + std::to_string(s + 1) + "/" + std::to_string(starts.size()));
    fits.push_back(fit_bounded(residuals, bounds, starts[s], lo));
    if (fits.back().cost < fits[best].cost) best = s;
  }
  const LsqResult& fit = fits[best];

  say("diagnostics at the best fit");
  MatrixXd jac = forward_jacobian(residuals, fit.x, fit.residuals, bounds, spec.fd_step);
  VectorXd scale(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) scale[static_cast<Eigen::Index>(i)] = bounds[i].hi - bounds[i].lo;
  // Residuals are ln(sim / measured) / noise: s^2 below 1 would claim more than the noise allows.
  FitDiagnostics diag = diagnose_fit(jac, fit.x, fit.residuals, scale, {}, 1.0);

  // ---- the feasible set: the starts' ends and a sample of the best fit's neighbourhood --
  // Neighbourhood: points best + S V c, S = diag(|x|), V the right singular vectors, c_k
  // from a Latin hypercube over [-e_k, e_k], e_k = 2 / (sigma_k sqrt(n)): a move that
  // changes the residuals by about two noise units in all (the feasibility rule's scale),
  // at most 1 (a 100% change) along directions the data barely see; clamped to the box.
  std::vector<VectorXd> candidates;
  for (const auto& f : fits) candidates.push_back(f.x);
  if (spec.neighbourhood > 0 && n > 0) {
    std::vector<ParamBound> unit(n, ParamBound{-1, 1});
    const double spread = 2.0 / std::sqrt(static_cast<double>(n));
    for (const VectorXd& c : latin_hypercube(unit, spec.neighbourhood, spec.start_seed + 1)) {
      VectorXd step = VectorXd::Zero(static_cast<Eigen::Index>(n));
      for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(n); ++k) {
        double sk = diag.singular_values[k];
        double e = sk > 0 ? std::min(spread / sk, 1.0) : 1.0;
        step += c[k] * e * diag.right_singular_vectors.col(k);
      }
      VectorXd x = fit.x;
      for (Eigen::Index i = 0; i < x.size(); ++i) {
        double s = std::abs(fit.x[i]) > 0 ? std::abs(fit.x[i]) : scale[i];
        x[i] = std::clamp(fit.x[i] + s * step[i], bounds[i].lo, bounds[i].hi);
      }
      candidates.push_back(x);
    }
  }
  say("feasible set: " + std::to_string(candidates.size()) + " candidates");
  std::vector<Evaluation> evals;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    Evaluation e;
    e.x = candidates[c];
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
  const Evaluation& at_best = evals[best];  // candidates start with the fits, in order
  std::vector<const Evaluation*> feasible;
  for (const auto& e : evals)
    if (e.feasible) feasible.push_back(&e);
  const bool best_feasible = at_best.feasible;
  if (!best_feasible) feasible.insert(feasible.begin(), &at_best);  // never empty: see the report's note

  // ---- the report ----------------------------------------------------------------------
  json report;
  report["format"] = "nvmesim-calibration/1";
  report["name"] = spec.name;
  report["fitted_on"] = fitted_on;
  report["method"] = {
      {"solver", "Eigen unsupported LevenbergMarquardt"},
      {"residuals", "ln(simulated / measured) / noise, per fitting run and metric"},
      {"bounds", "x = lo + (hi - lo) (1 + sin u) / 2 over an unbounded u"},
      {"jacobian", "forward differences, step fd_step * (max - min) (backwards at the upper bound)"},
      {"fd_step", spec.fd_step},
      {"seed", spec.seed},
      {"starts", spec.starts},
      {"start_seed", spec.start_seed},
      {"max_evaluations", spec.max_evaluations}};
  report["residual_variance"] = diag.residual_variance;
  report["residual_count"] = diag.residuals;
  report["cost"] = fit.cost;
  report["best_start"] = best;

  json params = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    const auto ii = static_cast<Eigen::Index>(i);
    const auto& p = spec.parameters[i];
    double v = fit.x[ii], se = diag.std_error[ii];
    double flo = v, fhi = v;
    for (const Evaluation* e : feasible) {
      flo = std::min(flo, e->x[ii]);
      fhi = std::max(fhi, e->x[ii]);
    }
    json pj = {{"path", p.path},
               {"value", p.integer ? json(static_cast<int64_t>(std::llround(v))) : json(v)},
               {"std_error", finite_or_null(se)},
               {"interval", {std::max(p.bound.lo, v - 2 * se), std::min(p.bound.hi, v + 2 * se)}},
               {"feasible_range", {flo, fhi}},
               {"bounds", {p.bound.lo, p.bound.hi}},
               {"start", x0[ii]},
               {"identifiable", !diag.unidentifiable[i]}};
    params.push_back(pj);
  }
  report["parameters"] = params;
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

  json starts_j = json::array();
  for (std::size_t s = 0; s < fits.size(); ++s) {
    json sj = {{"cost", fits[s].cost}, {"evaluations", fits[s].evaluations}, {"status", fits[s].status}};
    for (std::size_t i = 0; i < n; ++i) {
      sj["start"][spec.parameters[i].path] = starts[s][static_cast<Eigen::Index>(i)];
      sj["end"][spec.parameters[i].path] = fits[s].x[static_cast<Eigen::Index>(i)];
    }
    starts_j.push_back(sj);
  }
  report["starts"] = starts_j;

  json members = json::array();
  for (const Evaluation* e : feasible) {
    json mj = {{"max_fit_error", e->max_fit_error}, {"meets_tolerance", e->feasible}};
    for (std::size_t i = 0; i < n; ++i) mj["parameters"][spec.parameters[i].path] = e->x[static_cast<Eigen::Index>(i)];
    members.push_back(mj);
  }
  report["feasible_set"] = {{"tolerance", spec.tolerance},
                            {"rule", "every fitting metric within max(tolerance, 2 x its run's noise) of the measurement"},
                            {"candidates", candidates.size()},
                            {"best_fit_meets_tolerance", best_feasible},
                            {"members", members}};

  json runs = json::array();
  std::map<std::string, std::vector<double>> held_err;
  int held_points = 0, held_inside = 0;
  for (std::size_t r = 0; r < spec.runs.size(); ++r) {
    const CalibrationRun& run = spec.runs[r];
    json rj = {{"name", run.name}, {"role", run.fit ? "fit" : "holdout"}, {"source", run.source}, {"noise", run.noise}};
    json ms = json::array();
    for (const auto& [k, v] : run.measured) {
      double s = at_best.metrics[r].at(k);
      double plo = s, phi = s;
      for (const Evaluation* e : feasible) {
        plo = std::min(plo, e->metrics[r].at(k));
        phi = std::max(phi, e->metrics[r].at(k));
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

  // ---- the fitted profiles ---------------------------------------------------------------
  json profiles = json::object();
  for (std::size_t i = 0; i < n; ++i) {
    const auto& p = spec.parameters[i];
    const auto ii = static_cast<Eigen::Index>(i);
    if (!profiles.contains(p.slot)) {
      std::string slot0 = parameter_pointers(first, p.slot)[0];
      json prof = first.at(json::json_pointer(slot0));
      prof.erase("file");
      profiles[p.slot] = prof;
    }
    json& prof = profiles[p.slot];
    double v = fit.x[ii];
    prof[json::json_pointer(p.in_profile)] = p.integer ? json(static_cast<int64_t>(std::llround(v))) : json(v);
    std::string key = p.in_profile.substr(1);
    std::replace(key.begin(), key.end(), '/', '.');
    std::ostringstream src;
    src << "fitted by nvmesim calibrate on " << fitted_on << " (spec \"" << spec.name << "\"): " << number_text(v)
        << " +- " << number_text(diag.std_error[ii]) << " (1 s.e.)";
    if (diag.unidentifiable[i]) src << ", NOT identifiable from these runs (see the report's unidentified directions)";
    src << "; fitted to";
    for (std::size_t r : fitting) {
      const CalibrationRun& run = spec.runs[r];
      src << " " << run.name << " [" << run.source << ":";
      for (const auto& [k, mv] : run.measured) src << " " << k << " " << percent(at_best.metrics[r].at(k) / mv - 1);
      src << "]";
    }
    src << " (residuals: simulated vs measured)";
    prof["sources"][key] = src.str();
  }
  return CalibrationOutcome{report, profiles};
}

}  // namespace nvmesim
