#include "app/results/fio_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "app/calibration/measured_metrics.h"
#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

using nlohmann::json;

// A run's results document and the record it was written from.
struct Recorded {
  json results;
  results::RunRecord record;
};

Recorded run_with_record(const LoadedScenario& ls) {
  Recorded r;
  RunOptions o;
  o.record_out = &r.record;
  r.results = run_scenario(ls, o);
  return r;
}

Recorded default_short() {
  return run_with_record(testing::load_default({"duration_us=4000", "warmup_us=3000"}));
}

Recorded run_doc(const json& doc) { return run_with_record(testing::load_or_fail(doc, {"duration_us=2000", "warmup_us=500"})); }

const char* const kFioKeys[] = {"1.000000",  "5.000000",  "10.000000", "20.000000", "30.000000", "40.000000",
                                "50.000000", "60.000000", "70.000000", "80.000000", "90.000000", "95.000000",
                                "99.000000", "99.500000", "99.900000", "99.950000", "99.990000"};

// fio's default percentile list, its keys spelt as fio's printf("%f"), and ordered values.
void expect_fio_percentiles(const json& lat) {
  ASSERT_TRUE(lat.contains("percentile"));
  const json& pct = lat["percentile"];
  ASSERT_EQ(pct.size(), 17u);
  int64_t prev = lat["min"];
  for (const char* k : kFioKeys) {
    ASSERT_TRUE(pct.contains(k)) << k;
    EXPECT_GE(pct[k].get<int64_t>(), prev) << k;
    prev = pct[k];
  }
  EXPECT_LE(prev, lat["max"].get<int64_t>());
}

TEST(FioJson, OneFioJobPerCloneWithFiosKeys) {
  const Recorded run = default_short();
  const json& results = run.results;
  const json fio = fio_json_of(run.record);
  EXPECT_EQ(fio["fio version"], kFioVersion);
  EXPECT_EQ(fio["fio version"].get<std::string>().rfind("fio-3.", 0), 0u);
  EXPECT_EQ(fio["timestamp"], 0);
  EXPECT_EQ(fio["timestamp_ms"], 0);
  EXPECT_EQ(fio["time"], "Thu Jan  1 00:00:00 1970");
  EXPECT_EQ(fio["global options"]["ramp_time"], "3000us");
  EXPECT_EQ(fio["global options"]["runtime"], "4000us");
  EXPECT_EQ(fio["nvmesim"]["format"], "nvmesim-results/1");
  ASSERT_EQ(fio["jobs"].size(), results["jobs"].size());
  ASSERT_EQ(fio["jobs"].size(), 16u);  // 4 job sections x numjobs 4
  const double window_ms = results["window_ns"].get<double>() / 1e6;
  for (size_t i = 0; i < results["jobs"].size(); ++i) {
    const json& r = results["jobs"][i];
    const json& f = fio["jobs"][i];
    SCOPED_TRACE(i);
    EXPECT_EQ(f["jobname"], r["name"]);
    EXPECT_EQ(f["job options"]["rw"], "randread");
    EXPECT_EQ(f["job options"]["bs"], "4096");
    EXPECT_EQ(f["job options"]["iodepth"], "1024");
    const json& rd = f["read"];
    EXPECT_DOUBLE_EQ(rd["iops"].get<double>(), r["iops"].get<double>());
    EXPECT_GT(rd["iops"].get<double>(), 0.0);
    EXPECT_EQ(rd["total_ios"], r["ios"]);
    EXPECT_EQ(rd["io_bytes"].get<uint64_t>(), 4096 * r["ios"].get<uint64_t>());
    EXPECT_EQ(rd["bw_bytes"].get<int64_t>(), std::llround(r["bytes_per_s"].get<double>()));
    EXPECT_EQ(rd["bw"].get<int64_t>(), rd["bw_bytes"].get<int64_t>() / 1024);
    EXPECT_EQ(rd["runtime"].get<int64_t>(), std::llround(window_ms));
    // Submit to reap is fio's lat; slat has no samples, so clat is the same figure.
    for (const char* key : {"clat_ns", "lat_ns"}) {
      SCOPED_TRACE(key);
      const json& lat = rd[key];
      expect_fio_percentiles(lat);
      EXPECT_EQ(lat["N"], r["ios"]);
      EXPECT_EQ(lat["max"], r["latency_ns"]["max"]);
      EXPECT_NEAR(lat["mean"].get<double>(), r["latency_ns"]["mean"].get<double>(), 0.5);  // results: rounded
      EXPECT_GT(lat["min"].get<int64_t>(), 0);  // the real minimum
      EXPECT_GT(lat["stddev"].get<double>(), 0.0);
      EXPECT_EQ(lat["percentile"]["50.000000"], r["latency_ns"]["p50"]);
      EXPECT_EQ(lat["percentile"]["99.000000"], r["latency_ns"]["p99"]);
      EXPECT_EQ(lat["percentile"]["99.990000"], r["latency_ns"]["p99.99"]);
    }
    EXPECT_EQ(rd["slat_ns"]["N"], 0);
    EXPECT_FALSE(rd["slat_ns"].contains("percentile"));
    // The directions the job did not do are there, empty, as fio writes them.
    EXPECT_EQ(f["write"]["iops"], 0.0);
    EXPECT_EQ(f["write"]["total_ios"], 0);
    EXPECT_FALSE(f["write"]["clat_ns"].contains("percentile"));
    EXPECT_EQ(f["trim"]["total_ios"], 0);
    EXPECT_EQ(f["sync"]["total_ios"], 0);
    EXPECT_FALSE(f.contains("mixed"));
    // A closed loop at iodepth 1024 keeps its I/Os at fio's deepest level.
    EXPECT_EQ(f["iodepth_level"][">=64"], 100.0);
    EXPECT_EQ(f["iodepth_level"]["1"], 0.0);
    double share = 0;
    for (const char* map : {"latency_ns", "latency_us", "latency_ms"})
      for (const auto& [k, v] : f[map].items()) share += v.get<double>();
    EXPECT_NEAR(share, 100.0, 0.2);  // each non-empty range shows at least 0.01
  }
}

TEST(FioJson, LatencyFiguresAreTheHistogramsExactOnes) {
  const Recorded run = default_short();
  const json fio = fio_json_of(run.record);
  const sim::Histogram& h = run.record.jobs[0].figures.latency;
  const json& lat = fio["jobs"][0]["read"]["clat_ns"];
  EXPECT_EQ(lat["min"].get<int64_t>(), h.min());
  EXPECT_DOUBLE_EQ(lat["stddev"].get<double>(), h.stddev());
  EXPECT_EQ(lat["percentile"]["95.000000"].get<int64_t>(), h.quantile(0.95));
  EXPECT_EQ(lat["percentile"]["99.500000"].get<int64_t>(), h.quantile(0.995));
}

TEST(FioJson, CpuIsTheClonesCoreSharedAmongItsClones) {
  const Recorded run = default_short();
  const json& results = run.results;
  const json fio = fio_json_of(run.record);
  // The default testbed runs one clone per core: a clone's CPU is its core's.
  for (size_t i = 0; i < results["jobs"].size(); ++i) {
    const int64_t core = results["jobs"][i]["core"];
    const json* fr = nullptr;
    for (const auto& c : results["cores"])
      if (c["core"] == core) fr = &c["fractions"];
    ASSERT_NE(fr, nullptr);
    const double app = (*fr)["app"], kernel = (*fr)["hardirq"].get<double>() + (*fr)["softirq"].get<double>() +
                                              (*fr)["irq_thread"].get<double>();
    EXPECT_NEAR(fio["jobs"][i]["usr_cpu"].get<double>(), 100 * app, 1e-6);
    EXPECT_NEAR(fio["jobs"][i]["sys_cpu"].get<double>(), 100 * kernel, 1e-6);
  }
  // Two clones on one core split it evenly.
  json doc = testing::ideal_scenario();
  doc["jobs"][0]["numjobs"] = 2;
  doc["jobs"][0]["cpus_allowed"] = "0,0";
  doc["host"]["io_uring"]["syscall_ns"] = 1000;
  const Recorded shared = run_doc(doc);
  const json sf = fio_json_of(shared.record);
  ASSERT_EQ(sf["jobs"].size(), 2u);
  double app0 = 0;
  for (const auto& c : shared.results["cores"])
    if (c["core"] == 0) app0 = c["fractions"]["app"];
  EXPECT_GT(app0, 0.0);
  EXPECT_NEAR(sf["jobs"][0]["usr_cpu"].get<double>(), 50 * app0, 1e-6);
  EXPECT_NEAR(sf["jobs"][1]["usr_cpu"].get<double>(), 50 * app0, 1e-6);
}

TEST(FioJson, WritesGoUnderWriteAndARandrwJobFillsReadAndWrite) {
  json doc = testing::ideal_scenario();
  doc["jobs"][0]["rw"] = "randwrite";
  const json w = fio_json_of(run_doc(doc).record);
  EXPECT_GT(w["jobs"][0]["write"]["iops"].get<double>(), 0.0);
  expect_fio_percentiles(w["jobs"][0]["write"]["clat_ns"]);
  EXPECT_EQ(w["jobs"][0]["read"]["total_ios"], 0);

  doc["jobs"][0]["rw"] = "randrw";
  doc["jobs"][0]["rwmixread"] = 70;
  doc["jobs"][0]["iodepth"] = 8;
  const Recorded run = run_doc(doc);
  const json m = fio_json_of(run.record);
  const json& job = m["jobs"][0];
  EXPECT_FALSE(job.contains("mixed"));
  EXPECT_EQ(job["job options"]["rwmixread"], "70");
  EXPECT_FALSE(job["job options"].contains("unified_rw_reporting"));
  const json& rd = job["read"];
  const json& wr = job["write"];
  const uint64_t reads = rd["total_ios"], writes = wr["total_ios"];
  EXPECT_EQ(reads + writes, run.results["jobs"][0]["ios"].get<uint64_t>());
  EXPECT_NEAR(static_cast<double>(reads) / static_cast<double>(reads + writes), 0.70, 0.03);
  EXPECT_NEAR(rd["iops"].get<double>() + wr["iops"].get<double>(), run.results["jobs"][0]["iops"].get<double>(), 1e-6);
  for (const json* d : {&rd, &wr}) {
    expect_fio_percentiles((*d)["clat_ns"]);
    expect_fio_percentiles((*d)["lat_ns"]);
    EXPECT_EQ((*d)["clat_ns"]["N"], (*d)["total_ios"]);
  }
  EXPECT_EQ(job["iodepth_level"]["8"], 100.0);
}

TEST(FioJson, ARecordWithoutTheSplitReportsAMixedJobUnified) {
  json doc = testing::ideal_scenario();
  doc["jobs"][0]["rw"] = "randrw";
  Recorded run = run_doc(doc);
  for (auto& j : run.record.jobs) j.by_direction.reset();  // as hw records are
  const json fio = fio_json_of(run.record);
  const json& job = fio["jobs"][0];
  EXPECT_FALSE(job.contains("read"));
  EXPECT_EQ(job["job options"]["unified_rw_reporting"], "mixed");
  EXPECT_EQ(job["mixed"]["total_ios"], run.results["jobs"][0]["ios"]);
}

// The one reader of measurements (calibrate, compare) takes lat_ns's percentiles when fio
// wrote them (submit to reap, the simulator's latency), else clat_ns's, and says which.
TEST(FioJson, TheMeasurementReaderPrefersLatNsAndSaysWhichItRead) {
  json dir = {{"iops", 1000.0},
              {"total_ios", 100},
              {"clat_ns", {{"N", 100}, {"percentile", {{"50.000000", 10}, {"99.000000", 20}, {"99.900000", 30}}}}},
              {"lat_ns", {{"N", 100}}}};
  json doc = {{"fio version", "fio-3.36"}, {"jobs", {{{"read", dir}, {"usr_cpu", 1.0}, {"sys_cpu", 2.0}}}}};
  MetricValues m;
  std::string from;
  ASSERT_FALSE(metrics_of_fio(doc, "f", m, &from).has_value());
  EXPECT_EQ(from, "clat_ns");  // fio's default: lat_percentiles=0
  EXPECT_EQ(m["lat_p50"], 10);
  doc["jobs"][0]["read"]["lat_ns"]["percentile"] = {{"50.000000", 11}, {"99.000000", 21}, {"99.900000", 31}};
  m.clear();
  ASSERT_FALSE(metrics_of_fio(doc, "f", m, &from).has_value());
  EXPECT_EQ(from, "lat_ns");
  EXPECT_EQ(m["lat_p50"], 11);
  // The simulator's own file: lat_ns.
  auto read = read_measured_metrics(json(fio_json_of(run_doc(testing::ideal_scenario()).record)), "sim");
  ASSERT_TRUE(std::holds_alternative<MeasuredMetrics>(read));
  EXPECT_EQ(std::get<MeasuredMetrics>(read).latency_from, "lat_ns");
}

TEST(FioJson, SameRecordSameText) {
  EXPECT_EQ(fio_json_of(default_short().record).dump(2), fio_json_of(default_short().record).dump(2));
}

// Writes results documents and their fio JSON (default_*, one_job_*, randrw_*) to
// $NVMESIM_FIO_JSON_OUT (a directory), for the Python fio-JSON readers' tests
// (python/tests/test_compare.py, test_fio_json_shape.py); without it, to a temporary
// directory, and reads the file back.
TEST(FioJson, WritesFilesForThePythonReader) {
  const char* env = std::getenv("NVMESIM_FIO_JSON_OUT");
  const std::filesystem::path dir =
      env ? std::filesystem::path(env) : std::filesystem::temp_directory_path() / "nvmesim_fio_json_test";
  std::filesystem::create_directories(dir);
  // Sixteen clones, and one.
  LoadOptions o;
  o.overrides = {"duration_us=5000", "warmup_us=1000"};
  auto one = load_scenario_file(default_scenarios_dir() + "/published/b_one_drive_qd32.json", o);
  ASSERT_TRUE(std::holds_alternative<LoadedScenario>(one)) << std::get<InputError>(one).str();
  // The default testbed in steady state: its ports' message backlogs take the scenario's
  // own 10 ms warm-up to build (in a 3 ms one the clones' medians still spread by 25%, and
  // the Python side's mixture of sixteen jobs is off).
  LoadedScenario steady = testing::load_default({"duration_us=4000", "warmup_us=10000"});
  // One randrw job: its reads and writes in their own sections.
  json mixed_doc = testing::ideal_scenario();
  mixed_doc["jobs"][0]["rw"] = "randrw";
  mixed_doc["jobs"][0]["rwmixread"] = 70;
  mixed_doc["jobs"][0]["iodepth"] = 8;
  LoadedScenario mixed = testing::load_or_fail(mixed_doc, {"duration_us=2000", "warmup_us=500"});
  for (const auto& [name, ls] : {std::pair<std::string, const LoadedScenario*>{"default", &steady},
                                 {"one_job", &std::get<LoadedScenario>(one)},
                                 {"randrw", &mixed}}) {
    const Recorded run = run_with_record(*ls);
    const nlohmann::ordered_json fio = fio_json_of(run.record);
    {
      std::ofstream(dir / (name + "_results.json")) << dump_results(run.results);
      std::ofstream(dir / (name + "_fio.json")) << fio.dump(2) << "\n";
    }
    std::ifstream in(dir / (name + "_fio.json"));
    EXPECT_EQ(nlohmann::ordered_json::parse(in), fio);
  }
  if (!env) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nvmesim
