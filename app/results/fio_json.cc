#include "app/results/fio_json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

namespace nvmesim {
namespace {

// Keys in the order fio's stat.c adds them (fio's json.c prints them in that order).
using json = nlohmann::ordered_json;

int64_t to_int(double x) { return static_cast<int64_t>(std::llround(x)); }

// fio's key for a percentile: printf("%f").
std::string percentile_key(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%f", p);
  return buf;
}

// fio's clat_ns / lat_ns object (stat.c, add_ddir_lat_json): min, max, mean, stddev, N,
// and the percentiles when there were samples.
json latency_object(const sim::Histogram& h) {
  json o = {{"min", h.min()}, {"max", h.max()}, {"mean", h.mean()}, {"stddev", h.stddev()}, {"N", h.count()}};
  if (h.count() > 0) {
    json pct = json::object();
    for (double p : kFioPercentiles) pct[percentile_key(p)] = h.quantile(p / 100.0);
    o["percentile"] = pct;
  }
  return o;
}

// What fio writes for a latency it has no samples of (slat here: docs/results.md).
json no_samples() { return {{"min", 0}, {"max", 0}, {"mean", 0.0}, {"stddev", 0.0}, {"N", 0}}; }

// One direction's figures; null histogram: a direction the job did not do.
struct Direction {
  uint64_t ios = 0;
  uint64_t bytes = 0;
  const sim::Histogram* latency = nullptr;
};

// fio's direction object (stat.c, add_ddir_status_json). `group_bytes_per_s`: the
// direction's bandwidth over all jobs (fio's group aggregate, for bw_agg).
json direction_object(const Direction& d, double window_s, double group_bytes_per_s) {
  const bool did = d.ios > 0;
  const double iops = did ? static_cast<double>(d.ios) / window_s : 0.0;
  const int64_t bw_bytes = did ? to_int(static_cast<double>(d.bytes) / window_s) : 0;
  const int64_t bw = bw_bytes / 1024;  // KiB/s, fio's integer division
  const sim::Histogram empty;
  const sim::Histogram& h = d.latency ? *d.latency : empty;
  json o = {{"io_bytes", d.bytes},
            {"io_kbytes", d.bytes >> 10},
            {"bw_bytes", bw_bytes},
            {"bw", bw},
            {"iops", iops},
            {"runtime", did ? to_int(window_s * 1000.0) : 0},
            {"total_ios", d.ios},
            {"short_ios", 0},
            {"drop_ios", 0},
            {"slat_ns", no_samples()},
            // Submit call to reap: fio's lat. With no separate submission latency (slat
            // has no samples), clat carries the same figures (docs/results.md).
            {"clat_ns", latency_object(h)},
            {"lat_ns", latency_object(h)}};
  // fio samples bandwidth and IOPS every 500 ms; the window is one sample here.
  double agg = 100.0;
  if (group_bytes_per_s > 1024) agg = std::min(100.0, static_cast<double>(bw) * 100.0 / (group_bytes_per_s / 1024.0));
  o["bw_min"] = did ? bw : 0;
  o["bw_max"] = did ? bw : 0;
  o["bw_agg"] = did ? agg : 0.0;
  o["bw_mean"] = did ? static_cast<double>(bw) : 0.0;
  o["bw_dev"] = 0.0;
  o["bw_samples"] = did ? 1 : 0;
  o["iops_min"] = did ? to_int(iops) : 0;
  o["iops_max"] = did ? to_int(iops) : 0;
  o["iops_mean"] = iops;
  o["iops_stddev"] = 0.0;
  o["iops_samples"] = did ? 1 : 0;
  return o;
}

// fio's sync section: no fsync in a simulated run.
json sync_object() { return {{"total_ios", 0}, {"lat_ns", no_samples()}}; }

bool is_read_only(const std::string& rw) { return rw == "read" || rw == "randread"; }
bool is_write_only(const std::string& rw) { return rw == "write" || rw == "randwrite"; }

// The bucket of fio's latency_{ns,us,ms} and iodepth maps a value falls in: how many of
// the thresholds it reaches (io_u.c, io_u_mark_lat_*, io_u_mark_depth).
std::size_t bucket_of(uint64_t x, const std::vector<uint64_t>& thresholds) {
  std::size_t i = 0;
  while (i < thresholds.size() && x >= thresholds[i]) ++i;
  return i;
}

// Percentages of `total` as stat.c's stat_calc_lat: a non-empty bucket shows at least `floor`.
json percent_object(const std::vector<const char*>& keys, const std::vector<uint64_t>& counts, uint64_t total,
                    double floor) {
  json o = json::object();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    double p = total ? 100.0 * static_cast<double>(counts[i]) / static_cast<double>(total) : 0.0;
    if (p < floor && counts[i]) p = floor;
    o[keys[i]] = p;
  }
  return o;
}

// latency_ns, latency_us, latency_ms: the share of the job's I/Os per latency range, each
// histogram bucket counted at its lowest value (<= 0.8% from the values it holds).
void add_latency_maps(const sim::Histogram& h, json& j) {
  const std::vector<uint64_t> th = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};
  std::vector<uint64_t> n(10, 0), u(10, 0), m(12, 0);
  h.for_each_bucket([&](int64_t low, uint64_t count) {
    const auto v = static_cast<uint64_t>(low);
    if (v < 1000) n[std::min<std::size_t>(bucket_of(v, th), 9)] += count;
    else if (v < 1000000) u[std::min<std::size_t>(bucket_of(v / 1000, th), 9)] += count;
    else m[bucket_of(v / 1000000, th)] += count;
  });
  const std::vector<const char*> keys = {"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"};
  std::vector<const char*> mkeys = keys;
  mkeys.push_back("2000");
  mkeys.push_back(">=2000");
  j["latency_ns"] = percent_object(keys, n, h.count(), 0.01);
  j["latency_us"] = percent_object(keys, u, h.count(), 0.01);
  j["latency_ms"] = percent_object(mkeys, m, h.count(), 0.01);
}

// iodepth_level: a closed loop keeps its iodepth in flight, so its I/Os are counted at
// that depth; an open loop (rate_iops, a replay) is not known per I/O: zeros.
// iodepth_submit / iodepth_complete (I/Os per submit and per reap call) are not recorded:
// zeros.
void add_depth_maps(const nlohmann::json& section, bool open_loop, uint64_t ios, json& j) {
  std::vector<uint64_t> level(7, 0);
  if (!open_loop && ios > 0) level[bucket_of(section.at("iodepth").get<uint64_t>(), {2, 4, 8, 16, 32, 64})] = ios;
  j["iodepth_level"] = percent_object({"1", "2", "4", "8", "16", "32", ">=64"}, level, ios, 0.1);
  const std::vector<uint64_t> none(7, 0);
  j["iodepth_submit"] = percent_object({"0", "4", "8", "16", "32", "64", ">=64"}, none, 0, 0.1);
  j["iodepth_complete"] = percent_object({"0", "4", "8", "16", "32", "64", ">=64"}, none, 0, 0.1);
}

// fio's "job options": the options the job sets, as strings (as in a job file).
json job_options(const nlohmann::json& section, bool rw_mixed, bool unified) {
  json o = {{"name", section.at("name")},
            {"ioengine", section.at("ioengine")},
            {"rw", section.at("rw")},
            {"bs", std::to_string(section.at("bs").get<uint64_t>())},
            {"iodepth", std::to_string(section.at("iodepth").get<uint64_t>())},
            {"numjobs", std::to_string(section.at("numjobs").get<uint64_t>())}};
  if (rw_mixed) o["rwmixread"] = std::to_string(section.at("rwmixread").get<int>());
  if (unified) o["unified_rw_reporting"] = "mixed";
  if (section.value("rate_iops", 0.0) > 0) o["rate_iops"] = std::to_string(to_int(section.at("rate_iops").get<double>()));
  return o;
}

// A job's directions as fio reports them: 0 read, 1 write. Without the split (hw), its
// figures are the direction its rw names.
std::array<Direction, 2> directions_of(const results::JobRecord& job, const nlohmann::json& sections) {
  std::array<Direction, 2> d;
  if (job.by_direction) {
    for (std::size_t i = 0; i < 2; ++i)
      d[i] = {(*job.by_direction)[i].ios, (*job.by_direction)[i].bytes, &(*job.by_direction)[i].latency};
  } else {
    const std::string rw = sections.at(job.job).at("rw");
    const std::size_t i = is_write_only(rw) ? 1 : 0;
    d[i] = {job.figures.ios, job.figures.bytes, &job.figures.latency};
  }
  return d;
}

// What every job's object needs of the whole run.
struct RunContext {
  explicit RunContext(const nlohmann::json& scenario) : sc(scenario), sections(scenario.at("jobs")) {}
  const nlohmann::json& sc;
  const nlohmann::json& sections;
  double window_ns = 0, window_s = 0;
  bool replay = false;
  std::array<double, 2> group_bytes_per_s{0, 0};  // the group's (all jobs') bandwidth per direction
  std::map<uint32_t, int> clones_on_core;
  std::map<uint32_t, const results::CoreRecord*> cores;
};

RunContext context_of(const results::RunRecord& r, bool replay) {
  RunContext c(r.scenario);
  c.window_ns = static_cast<double>(r.window.count_ns());
  c.window_s = c.window_ns / 1e9;
  c.replay = replay;
  for (const auto& job : r.jobs) ++c.clones_on_core[job.core];
  for (const auto& core : r.cores) c.cores[core.core] = &core;
  for (const auto& job : r.jobs) {
    const auto d = directions_of(job, c.sections);
    for (std::size_t i = 0; i < 2; ++i) c.group_bytes_per_s[i] += static_cast<double>(d[i].bytes) / c.window_s;
  }
  return c;
}

// One job's object of fio's "jobs". A clone's CPU is its core's, shared evenly among the
// clones on that core.
json job_object(const results::JobRecord& job, const RunContext& c) {
  const nlohmann::json& section = c.sections.at(job.job);
  const std::string rw = section.at("rw");
  const bool rw_mixed = !is_read_only(rw) && !is_write_only(rw);
  // Without the split (hw), a mixed job is reported as fio's unified_rw_reporting=mixed.
  const bool unified = rw_mixed && !job.by_direction;
  double usr = 0.0, sys = 0.0;
  if (auto it = c.cores.find(job.core); it != c.cores.end()) {
    const results::CoreRecord& core = *it->second;
    const double share = 100.0 / c.clones_on_core.at(job.core) / c.window_ns;
    usr = static_cast<double>(core.app_ns) * share;
    sys = static_cast<double>(core.hardirq_ns + core.softirq_ns + core.irq_thread_ns) * share;
  }
  json j = {{"jobname", job.name},
            {"groupid", 0},
            {"job_start", 0},
            {"error", 0},
            {"eta", 0},
            {"elapsed", to_int((c.sc.at("warmup_us").get<double>() + c.sc.at("duration_us").get<double>()) / 1e6)},
            {"job options", job_options(section, rw_mixed, unified)}};
  const auto d = directions_of(job, c.sections);
  if (unified) {
    j["mixed"] = direction_object({job.figures.ios, job.figures.bytes, &job.figures.latency}, c.window_s,
                                  c.group_bytes_per_s[0] + c.group_bytes_per_s[1]);
  } else {
    j["read"] = direction_object(d[0], c.window_s, c.group_bytes_per_s[0]);
    j["write"] = direction_object(d[1], c.window_s, c.group_bytes_per_s[1]);
    j["trim"] = direction_object({}, c.window_s, 0.0);
    j["sync"] = sync_object();
  }
  j["job_runtime"] = to_int(c.window_s * 1000.0);
  j["usr_cpu"] = usr;
  j["sys_cpu"] = sys;
  j["ctx"] = 0;
  j["majf"] = 0;
  j["minf"] = 0;
  add_depth_maps(section, c.replay || section.value("rate_iops", 0.0) > 0, job.figures.ios, j);
  add_latency_maps(job.figures.latency, j);
  return j;
}

}  // namespace

nlohmann::ordered_json fio_json_of(const results::RunRecord& r, bool replay) {
  const RunContext c = context_of(r, replay);
  const nlohmann::json& sc = r.scenario;
  json jobs = json::array();
  for (const auto& job : r.jobs) jobs.push_back(job_object(job, c));

  // No wall-clock time: the same record gives the same file (the epoch's timestamp).
  json out = {{"fio version", kFioVersion},
              {"timestamp", 0},
              {"timestamp_ms", 0},
              {"time", "Thu Jan  1 00:00:00 1970"},
              {"global options",
               {{"ramp_time", std::to_string(sc.at("warmup_us").get<int64_t>()) + "us"},
                {"runtime", std::to_string(sc.at("duration_us").get<int64_t>()) + "us"},
                {"time_based", "1"},
                {"lat_percentiles", "1"}}},
              {"jobs", jobs}};
  json origin = {{"format", "nvmesim-results/1"}, {"seed", r.seed}};
  if (r.source) origin["source"] = *r.source;
  out["nvmesim"] = origin;
  return out;
}

}  // namespace nvmesim
