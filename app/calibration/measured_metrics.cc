#include "app/calibration/measured_metrics.h"

#include <array>

#include "app/input/json_text.h"

namespace nvmesim {
namespace {

constexpr std::array<const char*, 13> kMetrics = {
    "iops",   "lat_p50",        "lat_p99", "lat_p99.9",  "irqs_per_io", "completions_per_irq", "cpu_hardirq",
    "cpu_softirq", "cpu_irq_thread", "cpu_app", "cpu_kernel", "cpu_busy",    "iops_ratio"};

double num(const nlohmann::json& v) { return v.is_number() ? v.get<double>() : 0.0; }

// Why metrics_of_results cannot read `doc`, if it cannot: the first figure missing or
// not a number, by its JSON path.
std::optional<InputError> check_results(const nlohmann::json& doc, const std::string& where) {
  const auto number_at = [](const nlohmann::json& obj, const char* key) {
    return obj.is_object() && obj.contains(key) && obj[key].is_number();
  };
  if (!doc.contains("aggregate") || !doc["aggregate"].is_object()) return InputError{where + "/aggregate", "missing"};
  const nlohmann::json& agg = doc["aggregate"];
  for (const char* key : {"iops", "irqs_per_io"})
    if (!number_at(agg, key)) return InputError{where + "/aggregate/" + key, "missing or not a number"};
  const nlohmann::json& lat = agg.contains("latency_ns") ? agg["latency_ns"] : nlohmann::json();
  for (const char* key : {"p50", "p99", "p99.9"})
    if (!number_at(lat, key)) return InputError{where + "/aggregate/latency_ns/" + key, "missing or not a number"};
  if (!doc.contains("cores") || !doc["cores"].is_array()) return InputError{where + "/cores", "missing"};
  for (std::size_t i = 0; i < doc["cores"].size(); ++i) {
    const nlohmann::json& core = doc["cores"][i];
    const nlohmann::json& f = core.is_object() && core.contains("fractions") ? core["fractions"] : nlohmann::json();
    for (const char* key : {"hardirq", "softirq", "irq_thread", "app"})
      if (!number_at(f, key))
        return InputError{where + "/cores/" + std::to_string(i) + "/fractions/" + key, "missing or not a number"};
  }
  return std::nullopt;
}

}  // namespace

std::variant<MeasuredMetrics, InputError> read_measured_metrics(const nlohmann::json& doc, const std::string& where) {
  if (is_fio_json(doc)) {
    MeasuredMetrics m{"fio", {}, "", 0, ""};
    if (auto e = metrics_of_fio(doc, where, m.metrics, &m.latency_from)) return *e;
    if (!m.latency_from.empty()) m.latency_histogram = "fio";
    for (const auto& job : doc["jobs"])
      for (const char* d : {"read", "write", "mixed"})
        if (job.is_object() && job.contains(d) && job[d].is_object() && job[d].contains("total_ios") &&
            job[d]["total_ios"].is_number())
          m.ios += num(job[d]["total_ios"]);
    return m;
  }
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != "nvmesim-results/1")
    return InputError{where, "neither an nvmesim-results/1 document nor fio JSON (fio --output-format=json)"};
  if (auto e = check_results(doc, where)) return *e;
  const bool hw = doc.contains("source") && doc["source"] == "hw";
  const nlohmann::json& agg = doc["aggregate"];
  const double ios = agg.contains("ios") && agg["ios"].is_number() ? num(agg["ios"]) : 0.0;
  return MeasuredMetrics{hw ? "hw" : "sim", metrics_of_results(doc), "", ios, "nvmesim"};
}

bool is_metric_name(const std::string& name) {
  for (const char* m : kMetrics)
    if (name == m) return true;
  return false;
}

bool is_fio_json(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("fio version") && doc.contains("jobs") && doc["jobs"].is_array();
}

MetricValues metrics_of_results(const nlohmann::json& doc) {
  MetricValues m;
  const auto& agg = doc.at("aggregate");
  m["iops"] = num(agg.at("iops"));
  const auto& lat = agg.at("latency_ns");
  m["lat_p50"] = num(lat.at("p50"));
  m["lat_p99"] = num(lat.at("p99"));
  m["lat_p99.9"] = num(lat.at("p99.9"));
  m["irqs_per_io"] = num(agg.at("irqs_per_io"));
  if (agg.contains("completions_per_irq") && agg["completions_per_irq"].is_number())
    m["completions_per_irq"] = num(agg["completions_per_irq"]);
  double hard = 0, soft = 0, thread = 0, app = 0;
  for (const auto& c : doc.at("cores")) {
    const auto& f = c.at("fractions");
    hard += num(f.at("hardirq"));
    soft += num(f.at("softirq"));
    thread += num(f.at("irq_thread"));
    app += num(f.at("app"));
  }
  m["cpu_hardirq"] = hard;
  m["cpu_softirq"] = soft;
  m["cpu_irq_thread"] = thread;
  m["cpu_app"] = app;
  m["cpu_kernel"] = hard + soft + thread;
  m["cpu_busy"] = hard + soft + thread + app;
  return m;
}

std::optional<InputError> metrics_of_fio(const nlohmann::json& doc, const std::string& where, MetricValues& out,
                                         std::string* latency_from) {
  if (latency_from) latency_from->clear();
  const auto& jobs = doc["jobs"];
  if (jobs.empty()) return InputError{where + "/jobs", "empty"};
  double iops = 0, usr = 0, sys = 0;
  int directions = 0;
  const nlohmann::json* percentiles = nullptr;
  const char* percentiles_of = "";
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string jw = where + "/jobs/" + std::to_string(i);
    const auto& job = jobs[i];
    if (!job.is_object()) return InputError{jw, "not an object"};
    for (const char* d : {"read", "write", "mixed"}) {
      if (!job.contains(d)) continue;
      const auto& obj = job[d];
      if (!obj.is_object() || (obj.contains("iops") && !obj["iops"].is_number()))
        return InputError{jw + "/" + d, "not a fio direction object with a number 'iops'"};
      if (num(obj.value("iops", nlohmann::json(0))) == 0 && num(obj.value("total_ios", nlohmann::json(0))) == 0)
        continue;
      iops += num(obj["iops"]);
      ++directions;
      // lat_ns first: submit to reap, the simulator's latency; fio writes its percentiles
      // only with lat_percentiles=1, clat_ns's by default.
      for (const char* key : {"lat_ns", "clat_ns"})
        if (obj.contains(key) && obj[key].is_object() && obj[key].contains("percentile")) {
          percentiles = &obj[key]["percentile"];
          percentiles_of = key;
          break;
        }
    }
    for (const char* key : {"usr_cpu", "sys_cpu"})
      if (job.contains(key) && !job[key].is_number()) return InputError{jw + "/" + key, "not a number"};
    usr += num(job.value("usr_cpu", nlohmann::json(0))) / 100.0;
    sys += num(job.value("sys_cpu", nlohmann::json(0))) / 100.0;
  }
  if (directions == 0) return InputError{where + "/jobs", "no job did any read or write I/O"};
  out["iops"] = iops;
  out["cpu_app"] = usr;
  out["cpu_kernel"] = sys;
  out["cpu_busy"] = usr + sys;
  // Several jobs: fio gives no aggregate latency (compare's mixture is an approximation we
  // do not fit to); run fio with group_reporting for one.
  if (directions == 1 && percentiles && percentiles->is_object()) {
    for (auto [name, key] : {std::pair{"lat_p50", "50.000000"}, {"lat_p99", "99.000000"}, {"lat_p99.9", "99.900000"}})
      if (percentiles->contains(key) && (*percentiles)[key].is_number()) out[name] = num((*percentiles)[key]);
    if (latency_from) *latency_from = percentiles_of;
  }
  return std::nullopt;
}

}  // namespace nvmesim
