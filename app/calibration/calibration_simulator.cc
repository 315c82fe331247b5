#include "app/calibration/calibration_simulator.h"

#include <cmath>
#include <cstdint>
#include <variant>

#include "app/run/run.h"

namespace nvmesim {

using nlohmann::json;

std::string policy_override(const std::string& policy) { return "/policy={\"name\":\"" + policy + "\"}"; }

LoadResult CalibrationSimulator::load(const CalibrationRun& run, const Eigen::VectorXd& x,
                                      const std::string& extra_set) const {
  json doc = run.scenario;
  for (std::size_t i = 0; i < spec_.parameters.size(); ++i) {
    const CalibrationParameter& p = spec_.parameters[i];
    double v = x[static_cast<Eigen::Index>(i)];
    for (const std::string& ptr : parameter_pointers(doc, p.path))
      doc[json::json_pointer(ptr)] = p.integer ? json(static_cast<int64_t>(std::llround(v))) : json(v);
  }
  return load_scenario_json(std::move(doc), options(run, extra_set));
}

LoadOptions CalibrationSimulator::options(const CalibrationRun& run, const std::string& extra_set,
                                          bool with_sets) const {
  LoadOptions o;
  o.base_dir = run.base_dir;
  if (with_sets) o.overrides = run.sets;
  if (!extra_set.empty()) o.overrides.push_back(extra_set);
  o.seed = spec_.seed;
  return o;
}

MetricValues CalibrationSimulator::metrics(const CalibrationRun& run, const Eigen::VectorXd& x) const {
  MetricValues m = run_metrics(run, x, "");
  if (!run.ratio_policy.empty()) {
    MetricValues other = run_metrics(run, x, policy_override(run.ratio_policy));
    m["iops_ratio"] = m["iops"] > 0 ? other["iops"] / m["iops"] : 0.0;
  }
  return m;
}

MetricValues CalibrationSimulator::run_metrics(const CalibrationRun& run, const Eigen::VectorXd& x,
                                               const std::string& extra) const {
  auto loaded = load(run, x, extra);
  // Every corner of the box loaded before the fit (check_corners), so this holds.
  const auto& ls = std::get<LoadedScenario>(loaded);
  return metrics_of_results(run_scenario(ls));
}

std::optional<InputError> CalibrationSimulator::check_corners(const std::vector<ParamBound>& bounds) const {
  const std::size_t n = bounds.size();
  const auto corner = [&](std::size_t at_max, std::size_t also_at_max) {  // n: none
    Eigen::VectorXd x(static_cast<Eigen::Index>(n));
    for (std::size_t i = 0; i < n; ++i)
      x[static_cast<Eigen::Index>(i)] = i == at_max || i == also_at_max ? bounds[i].hi : bounds[i].lo;
    return x;
  };
  const auto ratio_set = [](const CalibrationRun& run) {
    return run.ratio_policy.empty() ? std::string() : policy_override(run.ratio_policy);
  };
  const auto load_at = [&](const CalibrationRun& run, const Eigen::VectorXd& x) { return load(run, x, ratio_set(run)); };
  const auto named = [&](std::size_t i) {
    return spec_.parameters[i].path + " (/parameters/" + std::to_string(i) + ")";
  };
  // As given: a run whose own scenario or `set` does not load says so at its path, rather
  // than as a corner of the box.
  for (std::size_t k = 0; k < spec_.runs.size(); ++k) {
    const CalibrationRun& run = spec_.runs[k];
    const std::string extra = ratio_set(run);
    const auto given = load_scenario_json(run.scenario, options(run, extra));
    const auto* e = std::get_if<InputError>(&given);
    if (!e) continue;
    const bool its_sets =
        !run.sets.empty() && std::holds_alternative<LoadedScenario>(load_scenario_json(run.scenario, options(run, extra, false)));
    return InputError{"/runs/" + std::to_string(k) + (its_sets ? "/set" : ""),
                      "run \"" + run.name + "\" does not load as given: " + e->str()};
  }
  for (const auto& run : spec_.runs)
    for (bool hi : {false, true}) {
      Eigen::VectorXd x(static_cast<Eigen::Index>(n));
      for (std::size_t i = 0; i < n; ++i) x[static_cast<Eigen::Index>(i)] = hi ? bounds[i].hi : bounds[i].lo;
      auto loaded = load_at(run, x);
      if (auto* e = std::get_if<InputError>(&loaded))
        return InputError{"/parameters", std::string("at every ") + (hi ? "max" : "min") + ", run \"" + run.name +
                                             "\" does not load: " + e->str()};
    }
  // One parameter at its max, the others at their min: the corner where a rule between two
  // values (initial_buffer_fill_min <= initial_buffer_fill_max) is most strained, which the
  // two corners above never try. A fit would reach such a point and stop in an internal
  // error; the partner is the parameter whose max makes the point load again.
  for (const auto& run : spec_.runs)
    for (std::size_t i = 0; i < n && n > 1; ++i) {
      auto loaded = load_at(run, corner(i, n));
      const auto* e = std::get_if<InputError>(&loaded);
      if (!e) continue;
      std::string which = named(i) + " at its max (" + json(bounds[i].hi).dump() + ")";
      for (std::size_t j = 0; j < n; ++j)
        if (j != i && std::holds_alternative<LoadedScenario>(load_at(run, corner(i, j)))) {
          which += " and " + named(j) + " at its min (" + json(bounds[j].lo).dump() + ")";
          break;
        }
      return InputError{"/parameters", "with " + which + ", a point of the box the fit may try, run \"" + run.name +
                                           "\" does not load: " + e->str() + "; narrow the ranges so that it does"};
    }
  return std::nullopt;
}

}  // namespace nvmesim
