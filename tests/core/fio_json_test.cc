#include "app/fio_json.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

using nlohmann::json;

TEST(FioJson, OneFioJobPerCloneWithFiosKeys) {
  const json results = testing::default_short();
  const json fio = fio_json_of(results);
  EXPECT_EQ(fio["fio version"], "nvmesim");
  EXPECT_EQ(fio["timestamp"], 0);
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
    EXPECT_EQ(f["job options"]["percentile_list"], kFioPercentileList);
    const json& rd = f["read"];
    EXPECT_DOUBLE_EQ(rd["iops"].get<double>(), r["iops"].get<double>());
    EXPECT_GT(rd["iops"].get<double>(), 0.0);
    EXPECT_EQ(rd["total_ios"], r["ios"]);
    EXPECT_EQ(rd["bw_bytes"].get<int64_t>(), std::llround(r["bytes_per_s"].get<double>()));
    EXPECT_EQ(rd["bw"].get<int64_t>(), rd["bw_bytes"].get<int64_t>() / 1024);
    EXPECT_EQ(rd["runtime"].get<int64_t>(), std::llround(window_ms));
    const json& pct = rd["clat_ns"]["percentile"];
    ASSERT_EQ(pct.size(), 5u);
    EXPECT_EQ(pct["50.000000"], r["latency_ns"]["p50"]);
    EXPECT_EQ(pct["90.000000"], r["latency_ns"]["p90"]);
    EXPECT_EQ(pct["99.000000"], r["latency_ns"]["p99"]);
    EXPECT_EQ(pct["99.900000"], r["latency_ns"]["p99.9"]);
    EXPECT_EQ(pct["99.990000"], r["latency_ns"]["p99.99"]);
    EXPECT_EQ(rd["clat_ns"]["N"], r["ios"]);
    EXPECT_EQ(rd["clat_ns"]["max"], r["latency_ns"]["max"]);
    EXPECT_EQ(rd["lat_ns"], rd["clat_ns"]);
    // The directions the job did not do are there, empty, as fio writes them.
    EXPECT_EQ(f["write"]["iops"], 0.0);
    EXPECT_EQ(f["write"]["total_ios"], 0);
    EXPECT_FALSE(f["write"]["clat_ns"].contains("percentile"));
    EXPECT_EQ(f["trim"]["total_ios"], 0);
    EXPECT_FALSE(f.contains("mixed"));
  }
}

TEST(FioJson, CpuIsTheClonesCoreSharedAmongItsClones) {
  const json results = testing::default_short();
  const json fio = fio_json_of(results);
  // The default testbed runs one clone per core: a clone's CPU is its core's.
  for (size_t i = 0; i < results["jobs"].size(); ++i) {
    const int64_t core = results["jobs"][i]["core"];
    const json* fr = nullptr;
    for (const auto& c : results["cores"])
      if (c["core"] == core) fr = &c["fractions"];
    ASSERT_NE(fr, nullptr);
    const double app = (*fr)["app"], kernel = (*fr)["hardirq"].get<double>() + (*fr)["softirq"].get<double>() +
                                              (*fr)["irq_thread"].get<double>();
    EXPECT_NEAR(fio["jobs"][i]["usr_cpu"].get<double>(), 100 * app, 1e-9);
    EXPECT_NEAR(fio["jobs"][i]["sys_cpu"].get<double>(), 100 * kernel, 1e-9);
  }
  // Two clones on one core split it evenly.
  json doc = testing::ideal_scenario();
  doc["jobs"][0]["numjobs"] = 2;
  doc["jobs"][0]["cpus_allowed"] = "0,0";
  doc["host"]["io_uring"]["syscall_ns"] = 1000;
  const json shared = testing::run(doc, {"duration_us=2000", "warmup_us=500"});
  const json sf = fio_json_of(shared);
  ASSERT_EQ(sf["jobs"].size(), 2u);
  double app0 = 0;
  for (const auto& c : shared["cores"])
    if (c["core"] == 0) app0 = c["fractions"]["app"];
  EXPECT_GT(app0, 0.0);
  EXPECT_NEAR(sf["jobs"][0]["usr_cpu"].get<double>(), 50 * app0, 1e-9);
  EXPECT_NEAR(sf["jobs"][1]["usr_cpu"].get<double>(), 50 * app0, 1e-9);
}

TEST(FioJson, WritesGoUnderWriteAndMixedJobsUnderMixed) {
  json doc = testing::ideal_scenario();
  doc["jobs"][0]["rw"] = "randwrite";
  const json w = fio_json_of(testing::run(doc, {"duration_us=2000", "warmup_us=500"}));
  EXPECT_GT(w["jobs"][0]["write"]["iops"].get<double>(), 0.0);
  EXPECT_EQ(w["jobs"][0]["read"]["total_ios"], 0);

  doc["jobs"][0]["rw"] = "randrw";
  doc["jobs"][0]["rwmixread"] = 70;
  const json results = testing::run(doc, {"duration_us=2000", "warmup_us=500"});
  const json m = fio_json_of(results);
  const json& job = m["jobs"][0];
  EXPECT_FALSE(job.contains("read"));
  EXPECT_FALSE(job.contains("write"));
  EXPECT_DOUBLE_EQ(job["mixed"]["iops"].get<double>(), results["jobs"][0]["iops"].get<double>());
  EXPECT_EQ(job["job options"]["unified_rw_reporting"], "mixed");
  EXPECT_EQ(job["job options"]["rwmixread"], "70");
}

TEST(FioJson, SameResultsSameText) {
  const json results = testing::default_short();
  EXPECT_EQ(fio_json_of(results).dump(2), fio_json_of(testing::default_short()).dump(2));
}

// Writes results documents and their fio JSON (default_*, one_job_*) to $NVMESIM_FIO_JSON_OUT (a directory), for
// the Python fio-JSON reader's test (python/tests/test_compare.py); without it, to a
// temporary directory, and reads the file back.
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
  // the Python side's mixture of sixteen jobs known at five percentiles each is off).
  LoadedScenario steady = testing::load_default({"duration_us=4000", "warmup_us=10000"});
  for (const auto& [name, results] :
       {std::pair<std::string, json>{"default", run_scenario(steady)},
        std::pair<std::string, json>{"one_job", run_scenario(std::get<LoadedScenario>(one))}}) {
    {
      std::ofstream(dir / (name + "_results.json")) << dump_results(results);
      std::ofstream(dir / (name + "_fio.json")) << fio_json_of(results).dump(2) << "\n";
    }
    std::ifstream in(dir / (name + "_fio.json"));
    EXPECT_EQ(json::parse(in), fio_json_of(results));
  }
  if (!env) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nvmesim
