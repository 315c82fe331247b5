#include "app/calibration/calibration_spec.h"

#include <chrono>
#include <cmath>
#include <filesystem>

#include "app/input/input_file.h"
#include "app/input/input_limits.h"
#include "app/input/json_reader.h"
#include "app/input/json_text.h"
#include "app/scenario/scenario_load.h"

namespace nvmesim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kFormat = "nvmesim-calibrate/1";

std::string resolve(const std::string& base_dir, const std::string& file) {
  fs::path p(file);
  return p.is_absolute() ? file : (fs::path(base_dir) / p).string();
}

std::optional<json> read_json(const std::string& file, const std::string& where, std::optional<InputError>& err) {
  auto text = read_input_file(file, limits::kMaxInputFileBytes);
  if (auto* why = std::get_if<FileError>(&text)) {
    err = InputError{where, why->message};
    return std::nullopt;
  }
  auto doc = parse_json_text(std::get<0>(text));
  if (auto* e = std::get_if<JsonTextError>(&doc)) {
    err = InputError{where, file + ": " + e->message};
    return std::nullopt;
  }
  return std::move(std::get<json>(doc));
}

std::vector<std::string> split_pointer(const std::string& p) {
  std::vector<std::string> parts;
  std::string cur;
  for (std::size_t i = 1; i <= p.size(); ++i) {
    if (i == p.size() || p[i] == '/') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += p[i];
    }
  }
  return parts;
}

// "/host/irq_entry_ns" -> {"/host", "/irq_entry_ns"}; "/drives/*/profile/read/mean_ns" ->
// {"/drives/*/profile", "/read/mean_ns"}. Empty slot: not a profile parameter.
std::pair<std::string, std::string> split_slot(const std::string& path) {
  auto parts = split_pointer(path);
  if (path.size() < 2 || path[0] != '/') return {};
  std::size_t n = 0;
  if (parts.size() >= 2 && parts[0] == "host") n = 1;
  else if (parts.size() >= 4 && parts[0] == "drives" && parts[2] == "profile") n = 3;
  else return {};
  std::string slot, rest;
  for (std::size_t i = 0; i < parts.size(); ++i) (i < n ? slot : rest) += "/" + parts[i];
  return {slot, rest};
}

// The published block's figure a run fits to.
std::optional<InputError> read_published(CalibrationRun& run, const json& pub, const std::string& which,
                                         const std::string& where) {
  if (!pub.is_object()) return InputError{where, "has no \"published\" block"};
  std::string baseline = pub.value("baseline_policy", ""), policy = pub.value("policy", "");
  if (baseline.empty() || policy.empty()) return InputError{where + "/published", "needs baseline_policy and policy"};
  auto policy_set = [](const std::string& name) { return "/policy={\"name\":\"" + name + "\"}"; };
  if (which == "change") {
    double mid, half = 0;
    if (pub.contains("change_pct") && pub["change_pct"].is_number()) {
      mid = pub["change_pct"].get<double>();
    } else if (pub.contains("change_pct_range") && pub["change_pct_range"].is_array() &&
               pub["change_pct_range"].size() == 2) {
      double lo = pub["change_pct_range"][0].get<double>(), hi = pub["change_pct_range"][1].get<double>();
      mid = (lo + hi) / 2;
      half = (hi - lo) / 2;
    } else {
      return InputError{where + "/published", "has neither change_pct nor change_pct_range"};
    }
    run.measured["iops_ratio"] = 1.0 + mid / 100.0;
    if (half > 0) run.measured_range["iops_ratio"] = {1.0 + (mid - half) / 100.0, 1.0 + (mid + half) / 100.0};
    // A published range is as good as a measurement of noise half its width.
    run.noise = std::max(run.noise, half / 100.0 / (1.0 + mid / 100.0));
    run.sets.push_back(policy_set(baseline));
    run.ratio_policy = policy;
    run.source += " (" + policy + " over " + baseline + ")";
    return std::nullopt;
  }
  const std::string key = which == "baseline_iops" ? "baseline_iops" : "policy_iops";
  if (!pub.contains(key) || !pub[key].is_number()) return InputError{where + "/published", "has no " + key};
  run.measured["iops"] = pub[key].get<double>();
  run.sets.push_back(policy_set(which == "baseline_iops" ? baseline : policy));
  run.source += " (" + key + ")";
  return std::nullopt;
}

// The scenario a run measured, as the spec gives it, a measurement names it, or a
// published row holds it; `dir` is where its relative file names resolve.
struct RunScenario {
  json doc;
  std::string dir;
  bool given = false;
};

// The run's "scenario": a file name or an object.
std::optional<InputError> read_run_scenario(JsonReader& r, const std::string& base_dir, std::optional<InputError>& err,
                                            RunScenario& sc) {
  if (!r.has("scenario")) return std::nullopt;
  const json& s = r.at("scenario");
  if (s.is_string()) {
    std::string file = resolve(base_dir, s.get<std::string>());
    auto doc = read_json(file, r.child("scenario"), err);
    if (!doc) return err;
    sc.doc = std::move(*doc);
    sc.dir = fs::path(file).parent_path().string();
  } else if (s.is_object()) {
    sc.doc = s;
  } else {
    return InputError{r.child("scenario"), "must be a scenario file name or object"};
  }
  sc.given = true;
  return std::nullopt;
}

// "published": a published row's file, its value to fit, and its scenario unless the run
// gives one.
std::optional<InputError> read_run_published(JsonReader& r, const std::string& base_dir, std::optional<InputError>& err,
                                             CalibrationRun& run, RunScenario& sc) {
  if (!r.at("published").is_string()) return InputError{r.child("published"), "must be a file name"};
  std::string file = resolve(base_dir, r.at("published").get<std::string>());
  auto doc = read_json(file, r.child("published"), err);
  if (!doc) return err;
  std::string which = r.choice("published_value", "change", {"change", "baseline_iops", "policy_iops"});
  if (!r.ok()) return err;
  run.source = "published row " + fs::path(file).filename().string();
  // Checked as `nvmesim report` checks it (the scenario loader never sees it: it is
  // erased below): a range of strings or a policy given as a number was an internal
  // error, a range [high, low] a fit to its middle.
  if (!doc->is_object() || !doc->contains("published"))
    return InputError{r.child("published"), file + ": has no \"published\" block"};
  if (auto e = check_published((*doc)["published"])) return InputError{r.child("published"), file + ": " + e->str()};
  if (auto e = read_published(run, (*doc)["published"], which, r.child("published"))) return e;
  if (!sc.given) {
    sc.doc = std::move(*doc);
    sc.doc.erase("published");
    sc.dir = fs::path(file).parent_path().string();
    sc.given = true;
  }
  return std::nullopt;
}

// "measured" as a file: hw or simulator results (whose scenario the run may take) or fio JSON.
std::optional<InputError> read_run_measured_file(JsonReader& r, const std::string& base_dir,
                                                 std::optional<InputError>& err, CalibrationRun& run, RunScenario& sc) {
  std::string file = resolve(base_dir, r.at("measured").get<std::string>());
  auto doc = read_json(file, r.child("measured"), err);
  if (!doc) return err;
  auto read = read_measured_metrics(*doc, r.child("measured") + " (" + file + ")");
  if (auto* e = std::get_if<InputError>(&read)) return *e;
  MeasuredMetrics& measured = std::get<MeasuredMetrics>(read);
  run.latency_histogram = measured.latency_histogram;
  run.measured_ios = measured.ios;
  run.measured = std::move(measured.metrics);
  const std::string name = fs::path(file).filename().string();
  if (measured.source == "fio") {
    run.source = "fio JSON " + name;
    if (!measured.latency_from.empty()) run.source += " (latency from " + measured.latency_from + ")";
  } else {
    run.source = std::string(measured.source == "hw" ? "hw" : "simulator") + " results " + name;
    if (!sc.given && doc->contains("scenario") && (*doc)["scenario"].is_object()) {
      sc.doc = (*doc)["scenario"];
      sc.given = true;
    }
  }
  return std::nullopt;
}

// What was measured: exactly one of "measured" (a file or an object of metric values) and
// "published".
std::optional<InputError> read_run_measurement(JsonReader& r, const std::string& where, const std::string& base_dir,
                                               std::optional<InputError>& err, CalibrationRun& run, RunScenario& sc) {
  const bool has_measured = r.has("measured"), has_published = r.has("published");
  if (has_measured == has_published) return InputError{where, "needs exactly one of \"measured\" and \"published\""};
  if (has_published) return read_run_published(r, base_dir, err, run, sc);
  if (r.at("measured").is_string()) return read_run_measured_file(r, base_dir, err, run, sc);
  if (!r.at("measured").is_object())
    return InputError{r.child("measured"), "must be a results or fio JSON file name, or an object of metric values"};
  for (const auto& [k, v] : r.at("measured").items()) {
    if (!is_metric_name(k)) return InputError{r.child("measured") + "/" + json_pointer_token(k), "not a metric name"};
    if (!v.is_number()) return InputError{r.child("measured") + "/" + json_pointer_token(k), "must be a number"};
    run.measured[k] = v.get<double>();
  }
  run.source = "values given in the spec";
  return std::nullopt;
}

// "set": the run's overrides, after those a published change adds.
std::optional<InputError> read_run_sets(JsonReader& r, CalibrationRun& run) {
  if (!r.has("set")) return std::nullopt;
  const json& s = r.at("set");
  if (!s.is_array()) return InputError{r.child("set"), "must be an array of \"path=value\" strings"};
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!s[i].is_string()) return InputError{r.child("set") + "/" + std::to_string(i), "must be a string"};
    run.sets.push_back(s[i].get<std::string>());
  }
  return std::nullopt;
}

// The metrics to fit: as listed, or those of iops / lat_p50 / lat_p99 the measurement has.
std::optional<InputError> choose_run_metrics(JsonReader& r, CalibrationRun& run) {
  MetricValues chosen;
  if (r.has("metrics")) {
    const json& ms = r.at("metrics");
    if (!ms.is_array() || ms.empty()) return InputError{r.child("metrics"), "must be a non-empty array of metric names"};
    for (std::size_t i = 0; i < ms.size(); ++i) {
      std::string w = r.child("metrics") + "/" + std::to_string(i);
      if (!ms[i].is_string() || !is_metric_name(ms[i].get<std::string>())) return InputError{w, "not a metric name"};
      auto it = run.measured.find(ms[i].get<std::string>());
      if (it == run.measured.end()) return InputError{w, "the measurement (" + run.source + ") does not have it"};
      chosen.insert(*it);
    }
  } else {
    for (const char* m : {"iops", "lat_p50", "lat_p99", "iops_ratio"})
      if (run.measured.count(m)) chosen[m] = run.measured[m];
  }
  if (chosen.empty()) return InputError{r.child("metrics"), "no metric to fit"};
  if (auto it = run.measured.find("iops"); it != run.measured.end() && it->second > 0) run.measured_iops = it->second;
  if (auto it = run.measured.find("irqs_per_io"); it != run.measured.end() && it->second > 0)
    run.measured_irqs_per_io = it->second;
  for (const auto& [k, v] : chosen)
    if (!(v > 0) || !std::isfinite(v))
      return InputError{r.child(r.has("published") ? "published" : "measured"), k + " must be > 0 to fit (log ratio)"};
  if (chosen.count("iops_ratio") && run.ratio_policy.empty())
    return InputError{r.child("metrics"), "iops_ratio comes from a published change only"};
  run.measured = std::move(chosen);
  return std::nullopt;
}

std::optional<InputError> read_run(const json& obj, const std::string& where, const std::string& base_dir,
                                   double default_noise, CalibrationRun& run) {
  std::optional<InputError> err;
  JsonReader r(obj, where, err);
  if (!r.ok()) return err;
  run.name = r.string("name", "");
  if (run.name.empty() && r.ok()) r.fail("name", "missing: every run needs a name");
  run.fit = r.choice("role", "fit", {"fit", "holdout"}) == "fit";
  run.noise = r.number("noise", default_noise, 1e-6, 10);
  if (!r.ok()) return err;

  RunScenario sc{json(), base_dir, false};
  if (auto e = read_run_scenario(r, base_dir, err, sc)) return e;
  if (auto e = read_run_measurement(r, where, base_dir, err, run, sc)) return e;
  if (!sc.given) return InputError{r.child("scenario"), "missing: the scenario that was measured"};
  if (!sc.doc.is_object()) return InputError{r.child("scenario"), "a scenario must be a JSON object"};
  if (auto e = inline_profile_files(sc.doc, sc.dir)) return InputError{r.child("scenario") + e->path, e->message};
  run.scenario = std::move(sc.doc);
  run.base_dir = sc.dir;

  if (auto e = read_run_sets(r, run)) return e;
  if (auto e = choose_run_metrics(r, run)) return e;
  r.reject_unknown({"scenario", "measured", "published", "set", "metrics"});
  return err;
}

}  // namespace

bool is_calendar_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  int fields[3] = {0, 0, 0};
  for (std::size_t i = 0, f = 0; i < text.size(); ++i) {
    if (i == 4 || i == 7) {
      ++f;
      continue;
    }
    if (text[i] < '0' || text[i] > '9') return false;
    fields[f] = fields[f] * 10 + (text[i] - '0');
  }
  using namespace std::chrono;
  return year_month_day{year{fields[0]}, month{static_cast<unsigned>(fields[1])}, day{static_cast<unsigned>(fields[2])}}
      .ok();
}

std::variant<std::vector<std::string>, std::string> expand_parameter_path(const json& doc, const std::string& path,
                                                                          bool numbers) {
  std::vector<std::string> done = {""};
  for (const std::string& tok : split_pointer(path)) {
    std::vector<std::string> next;
    for (const std::string& p : done) {
      json::json_pointer ptr(p);
      if (!doc.contains(ptr)) return "no such value";
      const json& node = doc.at(ptr);
      if (tok == "*") {
        if (!node.is_array()) return "\"*\" stands for an array index, and " + (p.empty() ? "/" : p) + " is not an array";
        for (std::size_t i = 0; i < node.size(); ++i) next.push_back(p + "/" + std::to_string(i));
      } else {
        next.push_back(p + "/" + tok);
      }
    }
    done = std::move(next);
  }
  for (const std::string& p : done) {
    json::json_pointer ptr(p);
    if (!doc.contains(ptr)) return "no value at " + p;
    if (numbers && !doc.at(ptr).is_number()) return p + " is not a number";
  }
  if (done.empty()) return "matches nothing";
  return done;
}

std::vector<std::string> parameter_pointers(const json& doc, const std::string& path) {
  auto r = expand_parameter_path(doc, path, false);
  return std::holds_alternative<std::vector<std::string>>(r) ? std::get<0>(std::move(r)) : std::vector<std::string>{};
}

namespace {

// A parameter's documented range: the profile's "ranges" entry ({"/irq_entry_ns": [lo,
// hi]}) from the first run whose scenario has it (a results document's scenario is the
// resolved one, without the profile's ranges); null when none has it.
const json* documented_range(const CalibrationSpec& spec, const CalibrationParameter& p) {
  for (const auto& run : spec.runs) {
    const std::string slot0 = parameter_pointers(run.scenario, p.slot)[0];
    const json& profile = run.scenario.at(json::json_pointer(slot0));
    if (profile.contains("ranges") && profile["ranges"].is_object() && profile["ranges"].contains(p.in_profile))
      return &profile["ranges"][p.in_profile];
  }
  return nullptr;
}

// Whether the field at `ptr` of `run`'s scenario holds an integer, from the resolved
// document, where each field is written in its own type; nothing when the scenario does
// not load. A fraction a profile writes as 1 (initial_buffer_fill_max) is a JSON integer
// all the same, and fitted as one its trials were rounded to 0 or 1.
std::optional<bool> resolved_is_integer(const CalibrationRun& run, const std::string& ptr) {
  LoadOptions o;
  o.base_dir = run.base_dir;
  o.overrides = run.sets;
  auto loaded = load_scenario_json(run.scenario, o);
  const auto* ls = std::get_if<LoadedScenario>(&loaded);
  const json::json_pointer at(ptr);
  if (!ls || !ls->resolved.contains(at) || !ls->resolved.at(at).is_number()) return std::nullopt;
  return ls->resolved.at(at).is_number_integer();
}

// One {path, min, max} of "parameters", appended to spec.parameters: its path must name a
// number in every run's scenario, its bounds default to the documented range.
std::optional<InputError> read_parameter(const json& obj, const std::string& pw, CalibrationSpec& spec,
                                         std::optional<InputError>& err) {
  JsonReader pr(obj, pw, err);
  CalibrationParameter p;
  p.path = pr.string("path", "");
  if (!pr.ok()) return *err;
  // RFC 6901's escapes: the pointers built from the path would not parse (an internal error).
  for (std::size_t i = 0; i < p.path.size(); ++i)
    if (p.path[i] == '~' && (i + 1 == p.path.size() || (p.path[i + 1] != '0' && p.path[i + 1] != '1')))
      return InputError{pw + "/path", "\"~\" at character " + std::to_string(i) +
                                          " is not ~0 or ~1: a JSON pointer writes \"~\" as ~0 and \"/\" as ~1"};
  std::tie(p.slot, p.in_profile) = split_slot(p.path);
  if (p.slot.empty())
    return InputError{pw + "/path", "must name a profile value: /host/... or /drives/N/profile/... (N may be *)"};
  for (const auto& q : spec.parameters)
    if (q.path == p.path) return InputError{pw + "/path", "\"" + p.path + "\" twice"};
  for (const auto& run : spec.runs) {
    auto where = expand_parameter_path(run.scenario, p.path);
    if (auto* why = std::get_if<std::string>(&where))
      return InputError{pw + "/path", "in run \"" + run.name + "\"'s scenario: " + *why};
  }
  const std::string first_ptr = parameter_pointers(spec.runs[0].scenario, p.path)[0];
  const json& first = spec.runs[0].scenario.at(json::json_pointer(first_ptr));
  p.integer = first.is_number_integer() && resolved_is_integer(spec.runs[0], first_ptr).value_or(true);
  const json* range = documented_range(spec, p);
  if (range && !(range->is_array() && range->size() == 2 && (*range)[0].is_number() && (*range)[1].is_number()))
    return InputError{pw + "/path", "the profile's ranges[\"" + p.in_profile + "\"] must be [lo, hi]"};
  bool has_min = pr.has("min"), has_max = pr.has("max");
  if ((!has_min || !has_max) && !range)
    return InputError{pw, "needs min and max: the profile documents no range for " + p.in_profile};
  double dlo = range ? (*range)[0].get<double>() : 0, dhi = range ? (*range)[1].get<double>() : 0;
  p.bound.lo = pr.number("min", dlo, -1e18, 1e18);
  p.bound.hi = pr.number("max", dhi, -1e18, 1e18);
  pr.reject_unknown({"comment"});
  if (!pr.ok()) return *err;
  if (!(p.bound.lo < p.bound.hi)) return InputError{pw + "/max", "must be > min"};
  if (range) p.physical_range = ParamBound{dlo, dhi};
  spec.parameters.push_back(std::move(p));
  return std::nullopt;
}

}  // namespace

CalibrationSpecResult load_calibration_spec(const json& doc, const std::string& base_dir) {
  std::optional<InputError> err;
  JsonReader r(doc, "", err);
  if (!r.ok()) return *err;
  if (r.string("format", "") != kFormat) return InputError{"/format", std::string("must be \"") + kFormat + "\""};
  CalibrationSpec spec;
  spec.name = r.string("name", "calibration");
  r.string("comment", "");
  spec.seed = r.u64("seed", 1, 0, UINT64_MAX);
  spec.starts = static_cast<int>(r.integer("starts", 4, 1, 64));
  spec.start_seed = r.u64("start_seed", 1, 0, UINT64_MAX);
  spec.fd_step = r.number("fd_step", 0.01, 1e-4, 0.5);
  spec.max_evaluations = static_cast<int>(r.integer("max_evaluations", 120, 2, 100000));
  spec.tolerance = r.number("tolerance", 0.05, 1e-6, 10);
  spec.neighbourhood = static_cast<int>(r.integer("neighbourhood", 16, 0, 10000));
  spec.fitted_on = r.string("fitted_on", "");
  if (r.ok() && !spec.fitted_on.empty() && !is_calendar_date(spec.fitted_on))
    return InputError{"/fitted_on", "must be a calendar date YYYY-MM-DD, got \"" + spec.fitted_on + "\""};
  double noise = r.number("noise", 0.02, 1e-6, 10);
  if (!r.ok()) return *err;

  if (!r.has("runs") || !r.at("runs").is_array() || r.at("runs").empty())
    return InputError{"/runs", "must be a non-empty array of measured runs"};
  const json& runs = r.at("runs");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    CalibrationRun run;
    if (auto e = read_run(runs[i], "/runs/" + std::to_string(i), base_dir, noise, run)) return *e;
    for (const auto& other : spec.runs)
      if (other.name == run.name) return InputError{"/runs/" + std::to_string(i) + "/name", "\"" + run.name + "\" twice"};
    spec.runs.push_back(std::move(run));
  }
  bool any_fit = false;
  for (const auto& run : spec.runs) any_fit = any_fit || run.fit;
  if (!any_fit) return InputError{"/runs", "no run has role \"fit\""};

  if (!r.has("parameters") || !r.at("parameters").is_array() || r.at("parameters").empty())
    return InputError{"/parameters", "must be a non-empty array of {path, min, max}"};
  const json& params = r.at("parameters");
  for (std::size_t i = 0; i < params.size(); ++i)
    if (auto e = read_parameter(params[i], "/parameters/" + std::to_string(i), spec, err)) return *e;
  r.reject_unknown({"runs", "parameters"});
  if (!r.ok()) return *err;
  return spec;
}

CalibrationSpecResult load_calibration_spec_file(const std::string& path) {
  std::optional<InputError> err;
  auto doc = read_json(path, "", err);
  if (!doc) return *err;
  return load_calibration_spec(*doc, fs::path(path).parent_path().string());
}

}  // namespace nvmesim
