#include "app/report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "app/input_file.h"
#include "app/input_limits.h"
#include "app/json_text.h"
#include "app/run.h"
#include "app/scenario_load.h"

namespace nvmesim {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string mega(double iops) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3fM", iops / 1e6);
  return b;
}
std::string pct(double p) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.2f%%", p);
  return b;
}

// What bounds a run, in words: the busiest core and its contexts, or the drive.
std::string bound(const json& r) {
  const auto& lim = r["limits"];
  std::string by = lim["bound_by"].get<std::string>();
  char b[96];
  if (by == "cpu") {
    double hard = 0, app = 0, thr = 0, soft = 0;
    for (const auto& c : r["cores"]) {
      const auto& f = c["fractions"];
      if (f["idle"].get<double>() > 0.5) continue;
      hard = std::max(hard, f["hardirq"].get<double>());
      app = std::max(app, f["app"].get<double>());
      thr = std::max(thr, f["irq_thread"].get<double>());
      soft = std::max(soft, f["softirq"].get<double>());
    }
    std::snprintf(b, sizeof b, "cpu (hardirq %.0f%%, softirq %.0f%%, irq thread %.0f%%, app %.0f%%)", hard * 100,
                  soft * 100, thr * 100, app * 100);
  } else if (by == "drive") {
    std::snprintf(b, sizeof b, "drive ceiling (%.0f%%)", lim["busiest_drive_utilization"].get<double>() * 100);
  } else {
    std::snprintf(b, sizeof b, "depth/latency (core %.0f%%, drive %.0f%%)",
                  lim["busiest_core_utilization"].get<double>() * 100,
                  lim["busiest_drive_utilization"].get<double>() * 100);
  }
  return b;
}

}  // namespace

int report_main(const std::string& dir, const std::vector<std::string>& overrides, std::ostream& out,
                std::ostream& err) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  if (ec || files.empty()) {
    err << "nvmesim: " << dir << ": no scenario files\n";
    return 2;
  }
  std::sort(files.begin(), files.end());
  out << "| scenario | published baseline | simulated baseline | published policy | simulated policy | published change | simulated change | simulated bound: baseline -> policy |\n"
      << "|---|---|---|---|---|---|---|---|\n";
  for (const auto& f : files) {
    // The same guarded read and nesting limit as the loader; the loader reports errors.
    auto text = read_input_file(f.string(), limits::kMaxInputFileBytes);
    if (!std::holds_alternative<std::string>(text)) continue;
    auto parsed = parse_json_text(std::get<std::string>(text));
    if (!std::holds_alternative<json>(parsed)) continue;
    const json& doc = std::get<json>(parsed);
    if (!doc.is_object() || !doc.contains("published")) continue;
    const json& pub = doc["published"];
    if (!pub.is_object()) {
      err << "nvmesim: " << f.string() << ": /published: must be an object\n";
      return 2;
    }
    json runs[2];
    const char* which[2] = {"baseline_policy", "policy"};
    for (int k = 0; k < 2; ++k) {
      LoadOptions o;
      o.overrides = overrides;
      o.overrides.push_back("policy.name=" + pub.value(which[k], std::string("irq")));
      auto l = load_scenario_file(f.string(), o);
      if (auto* e = std::get_if<InputError>(&l)) {
        err << "nvmesim: " << f.string() << ": " << e->str() << "\n";
        return 2;
      }
      runs[k] = run_scenario(std::get<LoadedScenario>(l));
    }
    double b = runs[0]["aggregate"]["iops"].get<double>(), p = runs[1]["aggregate"]["iops"].get<double>();
    std::string pub_change = pub.contains("change_pct") ? pct(pub["change_pct"].get<double>())
                           : pub.contains("change_pct_range")
                               ? pct(pub["change_pct_range"][0].get<double>()) + " to " + pct(pub["change_pct_range"][1].get<double>())
                               : "-";
    out << "| " << f.stem().string() << " (" << pub.value("policy", "") << ")"
        << " | " << (pub.contains("baseline_iops") ? mega(pub["baseline_iops"].get<double>()) : "-")
        << " | " << mega(b)
        << " | " << (pub.contains("policy_iops") ? mega(pub["policy_iops"].get<double>()) : "-")
        << " | " << mega(p)
        << " | " << pub_change
        << " | " << pct((p / b - 1) * 100)
        << " | " << bound(runs[0]) << " -> " << bound(runs[1]) << " |\n";
    out.flush();
  }
  return 0;
}

}  // namespace nvmesim
