#include "app/scenario/fio_job.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

TEST(FioJob, CommonOptionsMapToScenarioJobs) {
  const char* text =
      "; policy A's libaio workload\n"
      "[global]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=1024\n"
      "iodepth_batch_submit=32\niodepth_batch_complete_min=32\nruntime=2s\nramp_time=500ms\ntime_based\n"
      "[drive0]\nfilename=/dev/nvme0n1\nnumjobs=4\ncpus_allowed=0-3\ncpus_allowed_policy=split\n"
      "[drive1]\nfilename=/dev/nvme1n1:/dev/nvme2n1\nrw=randrw\nrwmixwrite=30\nbs=16k\n";
  auto r = fio_text_to_scenario_patch(text, "t.fio");
  ASSERT_TRUE(std::holds_alternative<nlohmann::json>(r)) << std::get<InputError>(r).str();
  auto p = std::get<nlohmann::json>(r);
  EXPECT_EQ(p["duration_us"], 2000000);
  EXPECT_EQ(p["warmup_us"], 500000);
  ASSERT_EQ(p["jobs"].size(), 2u);
  const auto& j0 = p["jobs"][0];
  EXPECT_EQ(j0["ioengine"], "libaio");
  EXPECT_EQ(j0["iodepth"], 1024);
  EXPECT_EQ(j0["iodepth_batch_submit"], 32);
  EXPECT_EQ(j0["iodepth_batch_complete_min"], 32);
  EXPECT_EQ(j0["numjobs"], 4);
  EXPECT_EQ(j0["cpus_allowed"], "0-3");
  EXPECT_EQ(j0["drives"], nlohmann::json({0}));
  const auto& j1 = p["jobs"][1];
  EXPECT_EQ(j1["rw"], "randrw");
  EXPECT_EQ(j1["rwmixread"], 70);
  EXPECT_EQ(j1["bs"], 16384);
  EXPECT_EQ(j1["drives"], nlohmann::json({1, 2}));
  EXPECT_EQ(j1["iodepth"], 1024);  // from [global]
}

TEST(FioJob, ErrorsNameFileLineAndOption) {
  auto r = fio_text_to_scenario_patch("[j]\nioengine=sync\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_EQ(std::get<InputError>(r).path, "a.fio:2");
  r = fio_text_to_scenario_patch("[j]\nbs=4q\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_NE(std::get<InputError>(r).message.find("'bs'"), std::string::npos);
  r = fio_text_to_scenario_patch("iodepth=1\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  r = fio_text_to_scenario_patch("[global]\niodepth=1\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_EQ(std::get<InputError>(r).message, "no job section");
}

// A repeated option: the last value wins (fio's rule), but every value is checked, as
// fio checks each as it reads it, including a [global] value a job section replaces.
TEST(FioJob, RepeatedOptionsAreEachCheckedAndTheLastWins) {
  auto error_at = [](const std::string& text) {
    auto r = fio_text_to_scenario_patch(text, "a.fio");
    return std::holds_alternative<InputError>(r) ? std::get<InputError>(r).path : std::string("converted");
  };
  EXPECT_EQ(error_at("[j]\niodepth=abc\niodepth=4\n"), "a.fio:2");
  EXPECT_EQ(error_at("[global]\niodepth=zz\n[j]\niodepth=4\n"), "a.fio:2");
  EXPECT_EQ(error_at(std::string("[j]\niodepth=4\0junk\n", 20)), "a.fio:2");  // a NUL byte
  auto r = fio_text_to_scenario_patch("[global]\niodepth=8\n[j]\niodepth=4\niodepth=2\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<nlohmann::json>(r));
  EXPECT_EQ(std::get<nlohmann::json>(r)["jobs"][0]["iodepth"], 2);
}

TEST(FioJob, AJobFileRunsOnTheDefaultTestbed) {
  auto dir = std::filesystem::temp_directory_path();
  auto f = dir / "nvmesim_fio_test.fio";
  std::ofstream(f) << "[global]\nioengine=io_uring\nrw=randread\nbs=4k\niodepth=8\nruntime=3ms\nramp_time=1ms\n"
                      "[a]\nfilename=/dev/nvme1n1\ncpus_allowed=2\n";
  auto r = load_scenario_file(f.string(), {});
  ASSERT_TRUE(std::holds_alternative<LoadedScenario>(r)) << std::get<InputError>(r).str();
  const Scenario& sc = std::get<LoadedScenario>(r).scenario;
  ASSERT_EQ(sc.jobs.size(), 1u);
  EXPECT_EQ(sc.jobs[0].drives, std::vector<uint32_t>{1});
  EXPECT_EQ(sc.drives.size(), 4u);
  EXPECT_EQ(sc.duration, Duration::ms(3));
  auto res = run_scenario(std::get<LoadedScenario>(r));
  EXPECT_GT(res["drives"][1]["ios"].get<int64_t>(), 0);
  EXPECT_EQ(res["drives"][0]["ios"].get<int64_t>(), 0);
}

}  // namespace
}  // namespace nvmesim
