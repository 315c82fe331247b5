#include "app/report/report.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/input/input_file.h"
#include "app/input/input_limits.h"
#include "app/input/json_text.h"
#include "app/run/parallel_runs.h"
#include "app/run/run.h"
#include "app/scenario/scenario_load.h"

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
  if (by == "remapping_unit") {
    std::snprintf(b, sizeof b, "remapping unit (%.0f%%)", lim["busiest_remapping_unit_utilization"].get<double>() * 100);
    return b;
  }
  if (by == "socket_interrupts") {
    std::snprintf(b, sizeof b, "socket interrupts (%.0f%%)", lim["busiest_socket_interrupts_utilization"].get<double>() * 100);
    return b;
  }
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

// The middle of `v` (the mean of the two middles for an even count).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// What the table needs of one run (not its whole results document: a report over many
// seeds would hold them all).
struct RunSummary {
  double iops = 0;
  std::string bound;
};

// The tables' rows so far: the main table goes out row by row, the others at the end.
struct Tables {
  std::vector<std::string> per_seed;  // rows of the second table
  std::vector<std::string> measured;  // rows of the table of single measurements (per_drive_iops)
};

void print_header(std::ostream& out, uint32_t seeds) {
  if (seeds == 1) {
    out << "| scenario | published baseline | simulated baseline | published policy | simulated policy | published change | simulated change | simulated bound: baseline -> policy |\n";
  } else {
    out << "Each row runs at seeds S .. S+" << seeds - 1
        << " (S: its scenario's seed), baseline and policy paired by seed: IOPS are medians over the " << seeds
        << " seeds, the change is the median of the paired changes with their range in brackets, and the table "
           "after this one gives every seed's change.\n\n"
        << "| scenario | published baseline | simulated baseline (median) | published policy | simulated policy (median) | published change | simulated change: median (min .. max) | simulated bound at the median seed: baseline -> policy |\n";
  }
  out << "|---|---|---|---|---|---|---|---|\n";
}

// The file's document when it is a scenario with a "published" block; a file the loader
// would refuse is skipped here (the loader reports errors).
std::optional<json> published_scenario(const fs::path& f) {
  // The same guarded read and nesting limit as the loader.
  auto text = read_input_file(f.string(), limits::kMaxInputFileBytes);
  if (!std::holds_alternative<std::string>(text)) return std::nullopt;
  auto parsed = parse_json_text(std::get<std::string>(text));
  if (!std::holds_alternative<json>(parsed)) return std::nullopt;
  json& doc = std::get<json>(parsed);
  if (!doc.is_object() || !doc.contains("published")) return std::nullopt;
  return std::move(doc);
}

// Every run of a row, loaded up front so that an input error stops the report before
// anything runs: run k is arm k % 2 (baseline, policy) at seed S + k / 2; a single
// measurement (per_drive_iops) has one arm, the scenario as it is. False (the error
// written) on bad input.
bool load_runs(const fs::path& f, const json& pub, const ReportOptions& opts, std::ostream& err,
               std::vector<LoadedScenario>& loaded, uint64_t& first_seed) {
  const char* which[2] = {"baseline_policy", "policy"};
  const bool measurement = pub.contains("per_drive_iops");
  const uint32_t arms = measurement ? 1 : 2;
  for (uint32_t k = 0; k < arms * opts.seeds; ++k) {
    LoadOptions o;
    o.overrides = opts.overrides;
    if (!measurement) o.overrides.push_back("policy.name=" + pub.value(which[k % 2], std::string("irq")));
    if (k >= arms) o.seed = first_seed + k / arms;  // wraps past 2^64-1, as a seed may
    auto l = load_scenario_file(f.string(), o);
    if (auto* e = std::get_if<InputError>(&l)) {
      err << "nvmesim: " << f.string() << ": " << e->str() << "\n";
      return false;
    }
    loaded.push_back(std::move(std::get<LoadedScenario>(l)));
    if (k == 0) first_seed = loaded[0].scenario.seed;
  }
  return true;
}

// The runs are independent: side by side, each on one thread (a run's results do not
// depend on its thread count).
std::vector<RunSummary> run_all(const std::vector<LoadedScenario>& loaded) {
  std::vector<RunSummary> runs(loaded.size());
  run_parallel(
      loaded.size(), default_threads(),
      [&](std::size_t k, const ProgressFn&) {
        RunOptions ro;
        ro.threads = 1;
        const json results = run_scenario(loaded[k], ro);
        runs[k] = RunSummary{results["aggregate"]["iops"].get<double>(), bound(results)};
      },
      {});
  return runs;
}

// A single measurement's row: IOPS per drive against the published figure.
std::string measurement_row(const fs::path& f, const json& pub, const std::vector<RunSummary>& runs, double drives,
                            uint32_t seeds) {
  std::vector<double> per(seeds);
  for (uint32_t i = 0; i < seeds; ++i) per[i] = runs[i].iops / drives;
  std::vector<uint32_t> order(seeds);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return per[a] < per[b]; });
  const double want = pub["per_drive_iops"].get<double>(), got = median(per);
  std::string sim = mega(got);
  if (seeds > 1) sim += " (" + mega(per[order.front()]) + " .. " + mega(per[order.back()]) + ")";
  return "| " + f.stem().string() + " | " + mega(want) + " | " + sim + " | " + pct((got / want - 1) * 100) + " | " +
         mega(got * drives) + " | " + runs[order[(seeds - 1) / 2]].bound + " |\n";
}

// A policy row of the main table (baseline and policy paired by seed), and with several
// seeds its row of the per-seed table.
void policy_row(const fs::path& f, const json& pub, const std::vector<RunSummary>& runs, uint32_t seeds,
                uint64_t first_seed, std::ostream& out, Tables& tables) {
  std::vector<double> base(seeds), pol(seeds), change(seeds);
  for (uint32_t i = 0; i < seeds; ++i) {
    base[i] = runs[2 * i].iops;
    pol[i] = runs[2 * i + 1].iops;
    change[i] = (pol[i] / base[i] - 1) * 100;
  }
  // The seed whose change is the median (the lower middle for an even count) shows
  // what bounds the runs.
  std::vector<uint32_t> order(seeds);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return change[a] < change[b]; });
  const uint32_t mid = order[(seeds - 1) / 2];

  std::string sim_change = pct(median(change));
  if (seeds > 1)
    sim_change += " (" + pct(change[order.front()]) + " .. " + pct(change[order.back()]) + ")";
  std::string pub_change = pub.contains("change_pct") ? pct(pub["change_pct"].get<double>())
                         : pub.contains("change_pct_range")
                             ? pct(pub["change_pct_range"][0].get<double>()) + " to " + pct(pub["change_pct_range"][1].get<double>())
                             : "-";
  const std::string name = f.stem().string() + " (" + pub.value("policy", "") + ")";
  out << "| " << name
      << " | " << (pub.contains("baseline_iops") ? mega(pub["baseline_iops"].get<double>()) : "-")
      << " | " << mega(median(base))
      << " | " << (pub.contains("policy_iops") ? mega(pub["policy_iops"].get<double>()) : "-")
      << " | " << mega(median(pol))
      << " | " << pub_change
      << " | " << sim_change
      << " | " << runs[2 * mid].bound << " -> " << runs[2 * mid + 1].bound << " |\n";
  out.flush();
  if (seeds > 1) {
    std::string row = "| " + name + " | " + std::to_string(first_seed) + " | ";
    for (uint32_t i = 0; i < seeds; ++i) row += (i ? ", " : "") + pct(change[i]);
    tables.per_seed.push_back(row + " |\n");
  }
}

void print_tails(std::ostream& out, const Tables& tables, uint32_t seeds) {
  if (seeds > 1) {
    out << "\n| scenario | first seed S | simulated change at seeds S, S+1, ... |\n|---|---|---|\n";
    for (const auto& row : tables.per_seed) out << row;
  }
  if (!tables.measured.empty()) {
    out << "\nSingle measurements (the scenario as it is, no policy change): IOPS per drive"
        << (seeds > 1 ? ", the median over the seeds with its range" : "") << ".\n\n"
        << "| scenario | published per drive | simulated per drive | off by | simulated total | simulated bound |\n"
        << "|---|---|---|---|---|---|\n";
    for (const auto& row : tables.measured) out << row;
  }
}

}  // namespace

int report_main(const std::string& dir, const ReportOptions& opts, std::ostream& out, std::ostream& err) {
  assert(opts.seeds >= 1 && opts.seeds <= kMaxReportSeeds && "the CLI checks --seeds");
  const uint32_t seeds = opts.seeds;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  if (ec || files.empty()) {
    err << "nvmesim: " << dir << ": no scenario files\n";
    return 2;
  }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<fs::path, json>> rows;
  for (const auto& f : files)
    if (std::optional<json> doc = published_scenario(f)) rows.emplace_back(f, std::move(*doc));
  // A table with no rows, exit 0, said nothing about a directory of the wrong files.
  if (rows.empty()) {
    err << "nvmesim: " << dir << ": no scenario file with a \"published\" block (" << files.size()
        << " JSON file(s), none a scenario of published figures)\n";
    return 2;
  }
  print_header(out, seeds);
  Tables tables;
  for (const auto& [f, doc] : rows) {
    const json& pub = doc["published"];
    if (!pub.is_object()) {
      err << "nvmesim: " << f.string() << ": /published: must be an object\n";
      return 2;
    }
    std::vector<LoadedScenario> loaded;
    uint64_t first_seed = 0;
    if (!load_runs(f, pub, opts, err, loaded, first_seed)) return 2;
    const std::vector<RunSummary> runs = run_all(loaded);
    if (pub.contains("per_drive_iops")) {
      const auto drives = static_cast<double>(loaded[0].scenario.drives.size());
      tables.measured.push_back(measurement_row(f, pub, runs, drives, seeds));
    } else {
      policy_row(f, pub, runs, seeds, first_seed, out, tables);
    }
  }
  print_tails(out, tables, seeds);
  return 0;
}

}  // namespace nvmesim
