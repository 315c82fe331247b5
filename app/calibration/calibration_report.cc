#include "app/calibration/calibration_report.h"

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

namespace {

// The fit: its name, date, solver, starts, seed, step and cost.
void write_method(std::ostream& os, const json& report) {
  os << "# Calibration: " << report["name"].get<std::string>() << "\n\n";
  os << "Fitted on " << report["fitted_on"].get<std::string>() << " with " << report["method"]["solver"].get<std::string>()
     << ", " << report["method"]["starts"] << " start(s), seed " << report["method"]["seed"]
     << " for every simulation, forward-difference step " << fmt(report["method"]["fd_step"])
     << " x (max - min). Residuals "
     << report["method"]["residuals"].get<std::string>() << "; cost " << fmt(report["cost"]) << " over "
     << report["residual_count"] << " residuals, residual variance " << fmt(report["residual_variance"]) << ".\n\n";
}

// One row per fitted parameter: value, errors, intervals, ranges, whether the data pin it.
void write_parameters(std::ostream& os, const json& report) {
  os << "## Parameters\n\n| parameter | value | std. error | 95% profile interval | +-2 s.e. | feasible range | bounds "
        "| physical range | identifiable |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& p : report["parameters"]) {
    const auto end = [&](int k) {
      return fmt(p["profile_interval"][k]) + (p["profile_interval_ends"][k] == "bound" ? " (bound)" : "");
    };
    const json& range = p["physical_range"];
    std::string physical = range.is_array() ? fmt(range[0]) + " .. " + fmt(range[1]) : "-";
    if (p["outside_physical_range"].get<bool>()) physical = "**outside** " + physical;
    const bool lo = p["profile_interval_ends"][0] == "profile", hi = p["profile_interval_ends"][1] == "profile";
    os << "| `" << p["path"].get<std::string>() << "` | " << fmt(p["value"]) << " | " << fmt(p["std_error"]) << " | "
       << end(0) << " .. " << end(1) << " | " << fmt(p["interval"][0]) << " .. " << fmt(p["interval"][1]) << " | "
       << fmt(p["feasible_range"][0]) << " .. " << fmt(p["feasible_range"][1]) << " | " << fmt(p["bounds"][0])
       << " .. " << fmt(p["bounds"][1]) << " | " << physical << " | "
       << (p["identifiable"].get<bool>() ? "yes" : lo ? "**no** (lower end only)" : hi ? "**no** (upper end only)" : "**no**")
       << " |\n";
  }
}

// What the profile likelihood pins, the evaluations it took, and the values outside their physical range.
void write_uncertainty(std::ostream& os, const json& report) {
  const json& u = report["uncertainty"];
  os << "\n## What the data pin\n\nProfile likelihood (" << u["confidence"].get<double>() * 100
     << "%): a value is inside its interval while the least cost, the other parameters refitted, stays within "
     << fmt(u["threshold"]) << " of the best fit's; an end marked (bound) is where the search reached the bound "
        "without that rise. Residuals are divided by each metric's noise: the stated noise, the histogram bucket of a "
        "latency percentile, the counting noise of a rate (the runs' sigma below).\n\n";
  for (const auto& t : u["statements"]) os << "- " << t.get<std::string>() << "\n";
  os << "\nSimulator evaluations (each runs every fitting run): fit " << u["evaluations"]["fit"] << ", Jacobian "
     << u["evaluations"]["jacobian"] << ", profile " << u["evaluations"]["profile"] << ", feasible set "
     << u["evaluations"]["feasible_set"] << " (all runs).\n";
  if (!report["outside_physical_range"].empty()) {
    os << "\n**Outside the physical range its profile documents:**";
    for (const auto& p : report["parameters"])
      if (p["outside_physical_range"].get<bool>())
        os << " `" << p["path"].get<std::string>() << "` = " << fmt(p["value"]) << " (range " << fmt(p["physical_range"][0])
           << " .. " << fmt(p["physical_range"][1]) << ")";
    os << ". The fit leans on a value the profile holds implausible: a mechanism may be missing, or the bounds are "
          "wider than the physics (`calibrate --strict-ranges` fails on this).\n";
  }
}

// The correlation matrix, the scaled Jacobian's singular values and the directions the data do not pin.
void write_correlation(std::ostream& os, const json& report) {
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
    os << "By the Jacobian alone every parameter is identified (|corr| <= 0.95 and condition <= 1e6); the profile "
          "likelihood above is the judge.\n\n";
  } else {
    os << "Directions the Jacobian says the data do not pin (right singular vectors, in relative change of each "
          "parameter): moving along one changes the fitted metrics very little.\n\n";
    for (const auto& d : report["unidentified_directions"]) {
      os << "- singular value " << fmt(d["singular_value"]) << ":";
      for (const auto& [k, v] : d["direction"].items()) os << " " << fmt(v, "%+.3f") << " `" << k << "`";
      os << "\n";
    }
    os << "\n";
  }
}

// How many candidate parameter sets reproduce the fitting runs.
void write_feasible_set(std::ostream& os, const json& report) {
  const auto& fs = report["feasible_set"];
  os << "## Feasible set\n\n" << fs["members"].size() << " of " << fs["candidates"]
     << " candidate parameter sets (the starts' ends and a sampled neighbourhood of the best fit) reproduce the "
        "fitting runs: "
     << fs["rule"].get<std::string>() << " (tolerance " << fmt(fs["tolerance"]) << ").";
  if (!fs["best_fit_meets_tolerance"].get<bool>())
    os << " **The best fit itself does not meet the tolerance**: the set holds the best fit alone, and the model "
          "cannot match these runs within it.";
}

// Every run's metrics against the fit, and the held-out runs' summary.
void write_runs(std::ostream& os, const json& report) {
  os << "\n\n## Runs\n\n| run | role | metric | measured | simulated | error | sigma | prediction interval | inside |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : report["runs"])
    for (const auto& m : r["metrics"])
      os << "| " << r["name"].get<std::string>() << " | " << r["role"].get<std::string>() << " | "
         << m["metric"].get<std::string>() << " | " << fmt(m["measured"]) << " | " << fmt(m["simulated"]) << " | "
         << pct(m["error"]) << " | " << pct(m["sigma"]) << " | " << fmt(m["prediction_interval"][0]) << " .. "
         << fmt(m["prediction_interval"][1]) << " | " << (m["inside"].get<bool>() ? "yes" : "no") << " |\n";
  const auto& h = report["held_out"];
  if (h["points"].get<int>() > 0) {
    os << "\nHeld out: " << h["inside_prediction_interval"] << " of " << h["points"]
       << " measurements inside their prediction interval; MAPE";
    for (const auto& [k, v] : h["mape_pct"].items()) os << " " << k << " " << fmt(v, "%.1f") << "%";
    os << ".\n";
  }
}

}  // namespace

std::string calibration_report_markdown(const json& report) {
  std::ostringstream os;
  write_method(os, report);
  write_parameters(os, report);
  write_uncertainty(os, report);
  write_correlation(os, report);
  write_feasible_set(os, report);
  write_runs(os, report);
  return os.str();
}

}  // namespace nvmesim
