#include "app/fio_json.h"

#include <cassert>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

namespace nvmesim {
namespace {

using nlohmann::json;

// fio spells a percentile key with printf("%f"); the results key it comes from.
struct PercentileKey {
  const char* fio;
  const char* results;
};
constexpr PercentileKey kPercentileKeys[] = {{"50.000000", "p50"},
                                             {"90.000000", "p90"},
                                             {"99.000000", "p99"},
                                             {"99.900000", "p99.9"},
                                             {"99.990000", "p99.99"}};

int64_t to_int(double x) { return static_cast<int64_t>(std::llround(x)); }

// fio's clat_ns / lat_ns object. The results know mean, max and five percentiles, not
// min or stddev: those are written as 0 (docs/compare.md).
json latency_object(const json& latency_ns, uint64_t ios) {
  json o = {{"min", 0},
            {"max", latency_ns.at("max")},
            {"mean", latency_ns.at("mean")},
            {"stddev", 0.0},
            {"N", ios}};
  if (ios > 0) {
    json pct = json::object();
    for (const auto& k : kPercentileKeys) pct[k.fio] = latency_ns.at(k.results);
    o["percentile"] = pct;
  }
  return o;
}

json empty_latency_object() {
  return {{"min", 0}, {"max", 0}, {"mean", 0.0}, {"stddev", 0.0}, {"N", 0}};
}

// One direction's object; `job` is null for a direction the job did not do.
json direction_object(const json& job, double window_ms) {
  const bool did = !job.is_null();
  const uint64_t ios = did ? job.at("ios").get<uint64_t>() : 0;
  const double bytes_per_s = did ? job.at("bytes_per_s").get<double>() : 0.0;
  const int64_t io_bytes = to_int(bytes_per_s * window_ms / 1000.0);
  const int64_t bw_bytes = to_int(bytes_per_s);
  json d = {{"io_bytes", io_bytes},
            {"io_kbytes", io_bytes >> 10},
            {"bw_bytes", bw_bytes},
            {"bw", bw_bytes / 1024},  // KiB/s, fio's integer division
            {"iops", did ? job.at("iops").get<double>() : 0.0},
            {"runtime", did ? to_int(window_ms) : 0},
            {"total_ios", ios},
            {"short_ios", 0},
            {"drop_ios", 0},
            {"slat_ns", empty_latency_object()}};
  if (did) {
    d["clat_ns"] = latency_object(job.at("latency_ns"), ios);
    // Our latency runs from the submit call to the reap: fio's lat (slat + clat); with
    // slat unknown (0) both carry the same figures.
    d["lat_ns"] = d["clat_ns"];
  } else {
    d["clat_ns"] = empty_latency_object();
    d["lat_ns"] = empty_latency_object();
  }
  return d;
}

bool is_read_only(const std::string& rw) { return rw == "read" || rw == "randread"; }
bool is_write_only(const std::string& rw) { return rw == "write" || rw == "randwrite"; }

// fio's "job options": strings, as in a job file.
json job_options(const json& section, bool mixed) {
  json o = {{"name", section.at("name")},
            {"ioengine", section.at("ioengine")},
            {"rw", section.at("rw")},
            {"bs", std::to_string(section.at("bs").get<uint64_t>())},
            {"iodepth", std::to_string(section.at("iodepth").get<uint64_t>())},
            {"numjobs", std::to_string(section.at("numjobs").get<uint64_t>())},
            {"percentile_list", kFioPercentileList}};
  if (mixed) {
    o["rwmixread"] = std::to_string(section.at("rwmixread").get<int>());
    o["unified_rw_reporting"] = "mixed";
  }
  return o;
}

}  // namespace

json fio_json_of(const json& results) {
  assert(results.value("format", "") == "nvmesim-results/1");
  const double window_ms = results.at("window_ns").get<double>() / 1e6;
  const json& sections = results.at("scenario").at("jobs");

  // A clone's CPU is its core's, shared evenly among the clones on that core.
  std::map<int64_t, int> clones_on_core;
  for (const auto& job : results.at("jobs")) ++clones_on_core[job.at("core").get<int64_t>()];
  std::map<int64_t, const json*> core_fractions;
  for (const auto& core : results.at("cores")) core_fractions[core.at("core").get<int64_t>()] = &core.at("fractions");

  json jobs = json::array();
  for (const auto& job : results.at("jobs")) {
    const json& section = sections.at(job.at("job").get<size_t>());
    const std::string rw = section.at("rw");
    const bool mixed = !is_read_only(rw) && !is_write_only(rw);
    const int64_t core = job.at("core").get<int64_t>();
    double usr = 0.0, sys = 0.0;
    if (auto it = core_fractions.find(core); it != core_fractions.end()) {
      const json& f = *it->second;
      const double share = 100.0 / clones_on_core[core];
      usr = f.at("app").get<double>() * share;
      sys = (f.at("hardirq").get<double>() + f.at("softirq").get<double>() + f.at("irq_thread").get<double>()) *
            share;
    }
    json j = {{"jobname", job.at("name")},
              {"groupid", 0},
              {"job_start", 0},
              {"error", 0},
              {"job options", job_options(section, mixed)}};
    if (mixed) {
      j["mixed"] = direction_object(job, window_ms);
    } else {
      j["read"] = direction_object(is_read_only(rw) ? job : json(), window_ms);
      j["write"] = direction_object(is_write_only(rw) ? job : json(), window_ms);
      j["trim"] = direction_object(json(), window_ms);
    }
    j["job_runtime"] = to_int(window_ms);
    j["usr_cpu"] = usr;
    j["sys_cpu"] = sys;
    j["ctx"] = 0;
    j["majf"] = 0;
    j["minf"] = 0;
    jobs.push_back(j);
  }

  // No wall-clock time: the same results give the same file (timestamps are 0).
  json out = {{"fio version", "nvmesim"}, {"timestamp", 0}, {"timestamp_ms", 0}, {"time", ""}, {"jobs", jobs}};
  json origin = {{"format", results.at("format")}, {"seed", results.at("seed")}};
  if (results.contains("source")) origin["source"] = results.at("source");
  out["nvmesim"] = origin;
  return out;
}

}  // namespace nvmesim
