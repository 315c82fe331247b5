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
  LoadOptions o;
  o.base_dir = run.base_dir;
  o.overrides = run.sets;
  if (!extra_set.empty()) o.overrides.push_back(extra_set);
  o.seed = spec_.seed;
  return load_scenario_json(std::move(doc), o);
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
  for (const auto& run : spec_.runs)
    for (bool hi : {false, true}) {
      Eigen::VectorXd corner(static_cast<Eigen::Index>(n));
      for (std::size_t i = 0; i < n; ++i) corner[static_cast<Eigen::Index>(i)] = hi ? bounds[i].hi : bounds[i].lo;
      auto loaded = load(run, corner, run.ratio_policy.empty() ? "" : policy_override(run.ratio_policy));
      if (auto* e = std::get_if<InputError>(&loaded))
        return InputError{"/parameters", std::string("at every ") + (hi ? "max" : "min") + ", run \"" + run.name +
                                             "\" does not load: " + e->str()};
    }
  return std::nullopt;
}

}  // namespace nvmesim
