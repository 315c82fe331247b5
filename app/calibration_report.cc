#include "app/calibration_report.h"

#include <cstdio>
#include <sstream>

namespace nvmesim {
namespace {

using nlohmann::json;

std::string fmt(const json& v, const char* f = "%.4g") {
  if (!v.is_number()) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v.get<double>());
  return buf;
}

std::string pct(const json& v) {
  if (!v.is_number()) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * v.get<double>());
  return buf;
}

}  // namespace

std::string calibration_report_markdown(const json& report) {
  std::ostringstream os;
  os << "# Calibration: " << report["name"].get<std::string>() << "\n\n";
  os << "Fitted on " << report["fitted_on"].get<std::string>() << " with " << report["method"]["solver"].get<std::string>()
     << ", " << report["method"]["starts"] << " start(s), seed " << report["method"]["seed"]
     << " for every simulation, forward-difference step " << fmt(report["method"]["fd_step"])
     << " x (max - min). Residuals "
     << report["method"]["residuals"].get<std::string>() << "; cost " << fmt(report["cost"]) << " over "
     << report["residual_count"] << " residuals, residual variance " << fmt(report["residual_variance"]) << ".\n\n";

  os << "## Parameters\n\n| parameter | value | std. error | +-2 s.e. | feasible range | bounds | identifiable |\n"
        "|---|---|---|---|---|---|---|\n";
  for (const auto& p : report["parameters"])
    os << "| `" << p["path"].get<std::string>() << "` | " << fmt(p["value"]) << " | " << fmt(p["std_error"]) << " | "
       << fmt(p["interval"][0]) << " .. " << fmt(p["interval"][1]) << " | " << fmt(p["feasible_range"][0]) << " .. "
       << fmt(p["feasible_range"][1]) << " | " << fmt(p["bounds"][0]) << " .. " << fmt(p["bounds"][1]) << " | "
       << (p["identifiable"].get<bool>() ? "yes" : "**no**") << " |\n";

  os << "\n## Correlation matrix\n\n|   |";
  const auto& params = report["parameters"];
  for (std::size_t j = 0; j < params.size(); ++j) os << " " << j << " |";
  os << "\n|---|";
  for (std::size_t j = 0; j < params.size(); ++j) os << "---|";
  os << "\n";
  for (std::size_t i = 0; i < params.size(); ++i) {
    os << "| " << i << " `" << params[i]["path"].get<std::string>() << "` |";
    for (const auto& c : report["correlation"][i]) os << " " << fmt(c, "%+.3f") << " |";
    os << "\n";
  }
  os << "\nSingular values of the scaled Jacobian (d residual / d ln x):";
  for (const auto& s : report["singular_values"]) os << " " << fmt(s);
  os << "; condition number " << (report["condition"].is_number() ? fmt(report["condition"]) : "infinite") << ".\n\n";
  if (report["unidentified_directions"].empty()) {
    os << "Every parameter is identified (|corr| <= 0.95 and condition <= 1e6).\n\n";
  } else {
    os << "Directions the data do not pin (right singular vectors, in relative change of each parameter): moving "
          "along one changes the fitted metrics very little.\n\n";
    for (const auto& d : report["unidentified_directions"]) {
      os << "- singular value " << fmt(d["singular_value"]) << ":";
      for (const auto& [k, v] : d["direction"].items()) os << " " << fmt(v, "%+.3f") << " `" << k << "`";
      os << "\n";
    }
    os << "\n";
  }

  const auto& fs = report["feasible_set"];
  os << "## Feasible set\n\n" << fs["members"].size() << " of " << fs["candidates"]
     << " candidate parameter sets (the starts' ends and a sampled neighbourhood of the best fit) reproduce the "
        "fitting runs: "
     << fs["rule"].get<std::string>() << " (tolerance " << fmt(fs["tolerance"]) << ").";
  if (!fs["best_fit_meets_tolerance"].get<bool>())
    os << " **The best fit itself does not meet the tolerance**: the set holds the best fit alone, and the model "
          "cannot match these runs within it.";
  os << "\n\n## Runs\n\n| run | role | metric | measured | simulated | error | prediction interval | inside |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : report["runs"])
    for (const auto& m : r["metrics"])
      os << "| " << r["name"].get<std::string>() << " | " << r["role"].get<std::string>() << " | "
         << m["metric"].get<std::string>() << " | " << fmt(m["measured"]) << " | " << fmt(m["simulated"]) << " | "
         << pct(m["error"]) << " | " << fmt(m["prediction_interval"][0]) << " .. " << fmt(m["prediction_interval"][1])
         << " | " << (m["inside"].get<bool>() ? "yes" : "no") << " |\n";
  const auto& h = report["held_out"];
  if (h["points"].get<int>() > 0) {
    os << "\nHeld out: " << h["inside_prediction_interval"] << " of " << h["points"]
       << " measurements inside their prediction interval; MAPE";
    for (const auto& [k, v] : h["mape_pct"].items()) os << " " << k << " " << fmt(v, "%.1f") << "%";
    os << ".\n";
  }
  return os.str();
}

}  // namespace nvmesim
