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

// Two lines that set the same field: the later line wins, whichever option each is (fio
// reads a section's lines in order; options went through a map, so the alphabetically
// later option won: rwmixwrite over rwmixread, bs over blocksize, whatever the order).
TEST(FioJob, OfTwoOptionsSettingOneFieldTheLaterLineWins) {
  struct Case {
    std::string first, second, field;
    nlohmann::json first_wins_value, second_wins_value;  // the field when that line is the later one
  };
  const Case cases[] = {
      {"rwmixread=30", "rwmixwrite=40", "rwmixread", 30, 60},
      {"bs=8k", "blocksize=16k", "bs", 8192, 16384},
      {"rw=randwrite", "readwrite=randrw", "rw", "randwrite", "randrw"},
      {"iodepth_batch=4", "iodepth_batch_submit=2", "iodepth_batch_submit", 4, 2},
      {"iodepth_batch_complete=4", "iodepth_batch_complete_min=2", "iodepth_batch_complete_min", 4, 2},
  };
  for (const Case& c : cases) {
    auto field = [&](const std::string& body) {
      auto r = fio_text_to_scenario_patch("[j]\n" + body, "a.fio");
      EXPECT_TRUE(std::holds_alternative<nlohmann::json>(r)) << body << ": " << std::get<InputError>(r).str();
      return std::holds_alternative<nlohmann::json>(r) ? std::get<nlohmann::json>(r)["jobs"][0][c.field] : nlohmann::json();
    };
    EXPECT_EQ(field(c.first + "\n" + c.second + "\n"), c.second_wins_value) << c.first << " then " << c.second;
    EXPECT_EQ(field(c.second + "\n" + c.first + "\n"), c.first_wins_value) << c.second << " then " << c.first;
    // A job section's line comes after [global]'s, whichever option each is.
    auto r = fio_text_to_scenario_patch("[global]\n" + c.second + "\n[j]\n" + c.first + "\n", "a.fio");
    ASSERT_TRUE(std::holds_alternative<nlohmann::json>(r));
    EXPECT_EQ(std::get<nlohmann::json>(r)["jobs"][0][c.field], c.first_wins_value) << "[global] " << c.second;
    r = fio_text_to_scenario_patch("[global]\n" + c.first + "\n[j]\n" + c.second + "\n", "a.fio");
    ASSERT_TRUE(std::holds_alternative<nlohmann::json>(r));
    EXPECT_EQ(std::get<nlohmann::json>(r)["jobs"][0][c.field], c.second_wins_value) << "[global] " << c.first;
  }
}

// fio's HOWTO: "A job is only affected by a global section residing above it"; [global]
// sections add up, the later line winning.
TEST(FioJob, AGlobalSectionReachesOnlyTheJobsBelowIt) {
  auto r = fio_text_to_scenario_patch(
      "[global]\niodepth=8\nbs=8k\n[a]\n[global]\niodepth=16\nruntime=1s\n[b]\n[c]\niodepth=2\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<nlohmann::json>(r)) << std::get<InputError>(r).str();
  const auto& p = std::get<nlohmann::json>(r);
  EXPECT_EQ(p["jobs"][0]["iodepth"], 8);
  EXPECT_EQ(p["jobs"][1]["iodepth"], 16);
  EXPECT_EQ(p["jobs"][1]["bs"], 8192);  // from the first [global]
  EXPECT_EQ(p["jobs"][2]["iodepth"], 2);
  EXPECT_EQ(p["duration_us"], 1000000);
  // A [global] below every job changes nothing, but its values are checked.
  r = fio_text_to_scenario_patch("[a]\niodepth=4\n[global]\niodepth=8\nruntime=1s\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<nlohmann::json>(r));
  EXPECT_EQ(std::get<nlohmann::json>(r)["jobs"][0]["iodepth"], 4);
  EXPECT_FALSE(std::get<nlohmann::json>(r).contains("duration_us"));
  r = fio_text_to_scenario_patch("[a]\n[global]\niodepth=zz\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_EQ(std::get<InputError>(r).path, "a.fio:3");
}

// fio's rule for which section is global (parse_jobs_ini in fio's init.c:
// `global = !strncmp(name, "global", 6)`): any name that starts with "global", as written
// between the brackets. [global_x] was read as a job, so a file fio runs as one job ran
// here as two, the "global" one on every drive.
TEST(FioJob, ASectionWhoseNameStartsWithGlobalIsGlobalAsInFio) {
  auto r = fio_text_to_scenario_patch("[global_x]\niodepth=8\n[globals]\nbs=8k\n[a]\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<nlohmann::json>(r)) << std::get<InputError>(r).str();
  const auto& p = std::get<nlohmann::json>(r);
  ASSERT_EQ(p["jobs"].size(), 1u);
  EXPECT_EQ(p["jobs"][0]["name"], "a");
  EXPECT_EQ(p["jobs"][0]["iodepth"], 8);
  EXPECT_EQ(p["jobs"][0]["bs"], 8192);
  // fio compares the name as written: another case, or a blank before it, is a job.
  for (const char* job : {"Global", " global", "glob", "my_global"}) {
    r = fio_text_to_scenario_patch(std::string("[") + job + "]\niodepth=8\n[a]\n", "a.fio");
    ASSERT_TRUE(std::holds_alternative<nlohmann::json>(r)) << job;
    EXPECT_EQ(std::get<nlohmann::json>(r)["jobs"].size(), 2u) << job;
  }
  // A file of global sections alone has no job.
  r = fio_text_to_scenario_patch("[global1]\niodepth=1\n[global]\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_EQ(std::get<InputError>(r).str(), "a.fio: no job section");
}

// A drive given twice in one filename line (the same device, or two namespaces of one
// drive) is refused at that line in its own words; it was named by JSON paths the file
// never wrote ("listed twice (also at /jobs/0/drives/0)").
TEST(FioJob, ADriveGivenTwiceInFilenameIsNamedAtItsLine) {
  auto error = [](const std::string& text) {
    auto r = fio_text_to_scenario_patch(text, "a.fio");
    return std::holds_alternative<InputError>(r) ? std::get<InputError>(r).str() : std::string("converted");
  };
  EXPECT_EQ(error("[j]\nfilename=/dev/nvme0n1:/dev/nvme1n1:/dev/nvme0n1\n"),
            "a.fio:2: option 'filename': /dev/nvme0n1 is given twice: a job submits to each of its drives once");
  EXPECT_EQ(error("[global]\nbs=4k\n[j]\nfilename=/dev/nvme2n1:/dev/nvme2n2\n"),
            "a.fio:4: option 'filename': /dev/nvme2n1 and /dev/nvme2n2 are both drive 2 (namespaces of a drive are "
            "not modelled apart): a job submits to each of its drives once");
  // Two filename lines: the later one wins (fio's rule), nothing is given twice.
  auto r = fio_text_to_scenario_patch("[j]\nfilename=/dev/nvme0n1\nfilename=/dev/nvme0n1:/dev/nvme1n1\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<nlohmann::json>(r));
  EXPECT_EQ(std::get<nlohmann::json>(r)["jobs"][0]["drives"], nlohmann::json({0, 1}));
}

// Found by probing: names the kernel never gives (a leading zero) were taken for drive 0,
// and an empty name after a ':' was dropped while ":" alone was refused.
TEST(FioJob, FilenamesAreDevicesAsTheKernelNamesThem) {
  auto error = [](const std::string& text) {
    auto r = fio_text_to_scenario_patch(text, "a.fio");
    return std::holds_alternative<InputError>(r) ? std::get<InputError>(r).str() : std::string("converted");
  };
  for (const char* name : {"/dev/nvme00n1", "/dev/nvme0n01", "/dev/nvme+1n1", "/dev/nvme1n"})
    EXPECT_EQ(error(std::string("[j]\nfilename=") + name + "\n"),
              std::string("a.fio:2: option 'filename': only /dev/nvmeXnY devices (X < 4096) are modelled, got '") + name +
                  "'");
  for (const char* list : {"/dev/nvme0n1:", "/dev/nvme0n1::/dev/nvme1n1", ":/dev/nvme0n1"})
    EXPECT_EQ(error(std::string("[j]\nfilename=") + list + "\n"),
              "a.fio:2: option 'filename': only /dev/nvmeXnY devices (X < 4096) are modelled, got ''")
        << list;
  EXPECT_EQ(error("[j]\nfilename=/dev/nvme0n1:/dev/nvme10n1\n"), "converted");
}

// fio reads a byte-order mark as part of the first line, and refuses it; it was "option
// outside a section" here, above the [j] the user sees. Said as what it is.
TEST(FioJob, AByteOrderMarkIsRefusedAsWhatItIs) {
  auto r = fio_text_to_scenario_patch("\xEF\xBB\xBF[j]\nfilename=/dev/nvme0n1\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_EQ(std::get<InputError>(r).str(),
            "a.fio:1: starts with a UTF-8 byte-order mark, which fio does not read: save the file without it");
}

// Each generated field with the line that gave it (the later of two), as the file spells
// the option there; fields no line gave (a job's name) have none.
TEST(FioJob, EachFieldRecordsTheLineItCameFrom) {
  auto r = fio_text_to_scenario("[global]\nbs=8k\nruntime=2s\n[j]\nblocksize=16k\nrwmixread=30\nrwmixwrite=40\n"
                                "filename=/dev/nvme0n1\n",
                                "a.fio");
  ASSERT_TRUE(std::holds_alternative<FioConversion>(r)) << std::get<InputError>(r).str();
  const auto& s = std::get<FioConversion>(r).sources;
  auto line = [&](const std::string& at) {
    auto it = s.find(at);
    return it == s.end() ? std::string("none") : it->second.file + ":" + std::to_string(it->second.line) + " " + it->second.option;
  };
  EXPECT_EQ(line("/jobs/0/bs"), "a.fio:5 blocksize");
  EXPECT_EQ(line("/jobs/0/rwmixread"), "a.fio:7 rwmixwrite");
  EXPECT_EQ(line("/jobs/0/drives"), "a.fio:8 filename");
  EXPECT_EQ(line("/duration_us"), "a.fio:3 runtime");
  EXPECT_EQ(line("/jobs/0/name"), "none");
  auto e = fio_line_error(InputError{"/jobs/0/drives/1", "no such drive: 9"}, s);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->str(), "a.fio:8: option 'filename': no such drive: 9");
  EXPECT_FALSE(fio_line_error(InputError{"/jobs/0/iodepth", "must be >= 1, got 0"}, s).has_value());
  EXPECT_FALSE(fio_line_error(InputError{"/jobs/0", "x"}, s).has_value());
  EXPECT_FALSE(fio_line_error(InputError{"a.fio:3", "x"}, s).has_value());
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
