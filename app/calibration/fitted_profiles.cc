#include "app/calibration/fitted_profiles.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

namespace nvmesim {
namespace {

using nlohmann::json;

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

}  // namespace

json fitted_profiles(const CalibrationSpec& spec, const std::string& fitted_on, const CalibrationFit& fit) {
  // The profiles as the first fitting run's scenario has them.
  const json& first = spec.runs[fit.fitting[0]].scenario;
  json profiles = json::object();
  for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
    const auto& p = spec.parameters[i];
    const auto ii = static_cast<Eigen::Index>(i);
    if (!profiles.contains(p.slot)) {
      std::string slot0 = parameter_pointers(first, p.slot)[0];
      json prof = first.at(json::json_pointer(slot0));
      prof.erase("file");
      profiles[p.slot] = prof;
    }
    json& prof = profiles[p.slot];
    double v = fit.best_fit().x[ii];
    prof[json::json_pointer(p.in_profile)] = p.integer ? json(static_cast<int64_t>(std::llround(v))) : json(v);
    std::string key = p.in_profile.substr(1);
    std::replace(key.begin(), key.end(), '/', '.');
    std::ostringstream src;
    src << "fitted by nvmesim calibrate on " << fitted_on << " (spec \"" << spec.name << "\"): " << number_text(v)
        << " +- " << number_text(fit.diag.std_error[ii]) << " (1 s.e.)";
    const ParameterProfile& pl = fit.profile.parameters[i];
    src << ", 95% profile interval " << number_text(pl.lower.value) << (pl.lower.closed ? "" : " (bound)") << " .. "
        << number_text(pl.upper.value) << (pl.upper.closed ? "" : " (bound)");
    if (!pl.identifiable()) src << ", NOT identifiable from these runs (see the report's uncertainty statements)";
    if (p.physical_range && (v < p.physical_range->lo || v > p.physical_range->hi))
      src << ", OUTSIDE the physical range " << number_text(p.physical_range->lo) << " .. "
          << number_text(p.physical_range->hi);
    src << "; fitted to";
    for (std::size_t r : fit.fitting) {
      const CalibrationRun& run = spec.runs[r];
      src << " " << run.name << " [" << run.source << ":";
      for (const auto& [k, mv] : run.measured) src << " " << k << " " << percent(fit.at_best().metrics[r].at(k) / mv - 1);
      src << "]";
    }
    src << " (residuals: simulated vs measured)";
    prof["sources"][key] = src.str();
  }
  return profiles;
}

}  // namespace nvmesim
