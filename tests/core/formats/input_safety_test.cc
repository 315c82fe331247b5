// Bad input of every kind in issue 8 reaches the loaders as an InputError naming the JSON
// path (or file:line of a fio job file): never undefined behaviour, a wrapped value, a
// crash or an allocation the size of the input's numbers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/input/checked_number.h"
#include "app/input/input_file.h"
#include "app/input/input_limits.h"
#include "app/input/json_reader.h"
#include "app/input/json_text.h"
#include "app/scenario/fio_job.h"
#include "app/scenario/memory_estimate.h"
#include "models/device/device.h"
#include "models/workload/request.h"
#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

std::string shipped(const std::string& name) { return default_scenarios_dir() + "/" + name; }

// The error of loading the default scenario with `overrides`, or "" if it loads.
InputError load_error(std::vector<std::string> overrides, LoadOptions o = {}) {
  o.overrides = std::move(overrides);
  auto r = load_scenario_file(shipped("default.json"), o);
  if (auto* e = std::get_if<InputError>(&r)) return *e;
  return {};
}

InputError doc_error(const json& doc) {
  auto r = load_scenario_json(doc, {});
  if (auto* e = std::get_if<InputError>(&r)) return *e;
  return {};
}

fs::path temp_file(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / name;
  std::ofstream(p) << text;
  return p;
}

// ---- the checked conversion ------------------------------------------------------------

TEST(CheckedNumber, JsonIntegralsAtEveryMagnitude) {
  EXPECT_EQ(json_integral(json(-3)), WideInt{-3});
  EXPECT_EQ(json_integral(json(UINT64_MAX)), static_cast<WideInt>(UINT64_MAX));
  EXPECT_EQ(json_integral(json(1e3)), WideInt{1000});
  EXPECT_FALSE(json_integral(json(1.5)).has_value());
  EXPECT_FALSE(json_integral(json("1")).has_value());
  // Beyond int64 (and beyond any double-to-int conversion): clamped, still out of range.
  auto big = json_integral(json(1e19));
  ASSERT_TRUE(big.has_value());
  EXPECT_FALSE(in_range(big, INT64_MIN, INT64_MAX).has_value());
  EXPECT_FALSE(in_range(json_integral(json(1e300)), INT64_MIN, INT64_MAX).has_value());
  EXPECT_FALSE(in_range(json_integral(json(-1e300)), INT64_MIN, INT64_MAX).has_value());
  EXPECT_FALSE(in_range(json_integral(json(4294967296)), 0, UINT32_MAX).has_value());
  EXPECT_EQ(in_range_u64(json_integral(json(UINT64_MAX)), 0, UINT64_MAX), UINT64_MAX);
}

TEST(CheckedNumber, TextIntegrals) {
  EXPECT_EQ(parse_integral("42"), WideInt{42});
  EXPECT_EQ(parse_integral("-7"), WideInt{-7});
  for (const char* bad : {"", "-", " 1", "1 ", "1e3", "0x10", "+1", "1.0"}) EXPECT_FALSE(parse_integral(bad)) << bad;
  EXPECT_FALSE(in_range(parse_integral(std::string(400, '9')), INT64_MIN, INT64_MAX).has_value());
  EXPECT_EQ(in_range_u64(parse_integral("18446744073709551615"), 0, UINT64_MAX), UINT64_MAX);
  EXPECT_FALSE(in_range_u64(parse_integral("18446744073709551616"), 0, UINT64_MAX).has_value());
}

TEST(CheckedNumber, SizesAndDurationsNeverWrap) {
  EXPECT_EQ(parse_size("4k"), 4096u);
  EXPECT_FALSE(parse_size("99999999999g").has_value());
  EXPECT_FALSE(parse_size(std::string(40, '9')).has_value());
  EXPECT_EQ(parse_duration_ns("2s", 1), 2000000000);
  EXPECT_FALSE(parse_duration_ns("571849066285s", 1).has_value());  // wrapped to 3.9 ms before
  EXPECT_FALSE(parse_duration_ns("99999999999min", 1).has_value());
}

// ---- numbers in scenarios ---------------------------------------------------------------

TEST(InputSafety, FloatsBeyondInt64AreRangeErrors) {
  InputError e = load_error({"duration_us=1e19"});
  EXPECT_EQ(e.path, "/duration_us");
  EXPECT_EQ(e.message, "must be <= 3600000000, got 1e+19");
  // Neighbours: every integer field goes through the same conversion.
  EXPECT_EQ(load_error({"warmup_us=-1e300"}).path, "/warmup_us");
  EXPECT_EQ(load_error({"jobs.0.iodepth=1e30"}).path, "/jobs/0/iodepth");
  EXPECT_EQ(load_error({"host.cores=18446744073709551615"}).path, "/host/cores");
  EXPECT_EQ(load_error({"drives.0.profile.sq_fetch_ns=9.3e18"}).path, "/drives/0/profile/sq_fetch_ns");
  EXPECT_EQ(load_error({"policy.name=coalesce", "policy.params.thr=1e20"}).path, "/policy/params/thr");
  EXPECT_EQ(load_error({"jobs.0.bs=1e20"}).path, "/jobs/0/bs");
  EXPECT_EQ(load_error({"jobs.0.bs=\"99999999999g\""}).path, "/jobs/0/bs");
}

TEST(InputSafety, CpuAndDriveIndexesAreRangeCheckedBeforeConversion) {
  InputError e = load_error({"jobs.0.cpus_allowed=[4294967296]"});  // became [0] before
  EXPECT_EQ(e.path, "/jobs/0/cpus_allowed");
  EXPECT_EQ(load_error({"jobs.0.cpus_allowed=[1e19]"}).path, "/jobs/0/cpus_allowed");
  EXPECT_EQ(load_error({"jobs.0.cpus_allowed=\"4294967296\""}).path, "/jobs/0/cpus_allowed");
  EXPECT_EQ(load_error({"jobs.0.drives=[4294967296]"}).path, "/jobs/0/drives/0");
  EXPECT_EQ(load_error({"jobs.0.drives=[18446744073709551615]"}).path, "/jobs/0/drives/0");
}

TEST(InputSafety, CpuListsAreBoundedInLength) {
  const std::string many = "0-30000,0-30000,0-30000";
  EXPECT_EQ(load_error({"jobs.0.cpus_allowed=\"" + many + "\""}).path, "/jobs/0/cpus_allowed");
  json zeros = json::array();
  for (int i = 0; i < 70000; ++i) zeros.push_back(0);
  EXPECT_EQ(load_error({"jobs.0.cpus_allowed=" + zeros.dump()}).path, "/jobs/0/cpus_allowed");
}

TEST(InputSafety, SeedsTakeTheFullUnsignedRange) {
  LoadOptions o;
  o.overrides = {"seed=18446744073709551615"};
  auto a = load_scenario_file(shipped("default.json"), o);
  ASSERT_TRUE(std::holds_alternative<LoadedScenario>(a));
  EXPECT_EQ(std::get<LoadedScenario>(a).scenario.seed, UINT64_MAX);
  o.overrides = {"seed=9223372036854775808"};
  auto b = load_scenario_file(shipped("default.json"), o);
  ASSERT_TRUE(std::holds_alternative<LoadedScenario>(b));
  EXPECT_EQ(std::get<LoadedScenario>(b).scenario.seed, uint64_t{1} << 63);  // no longer all INT64_MAX
  EXPECT_EQ(load_error({"seed=-1"}).path, "/seed");
  EXPECT_EQ(load_error({"seed=1e20"}).path, "/seed");
}

TEST(InputSafety, DeviceValuesWhoseArithmeticWouldOverflowAreRefused) {
  EXPECT_EQ(load_error({"drives.0.profile.iops_max=1e-9"}).path, "/drives/0/profile/iops_max");
  EXPECT_EQ(load_error({"drives.0.profile.iops_max=0.5"}).path, "/drives/0/profile/iops_max");
  EXPECT_EQ(load_error({"drives.0.profile.link_bytes_per_s=1e-300"}).path, "/drives/0/profile/link_bytes_per_s");
  EXPECT_EQ(load_error({"drives.1.profile.link_bytes_per_s=999999"}).path, "/drives/1/profile/link_bytes_per_s");
  EXPECT_EQ(load_error({"jobs.0.rate_iops=1e-300"}).path, "/jobs/0/rate_iops");
  // 0 still means "no ceiling" / "closed loop".
  EXPECT_EQ(load_error({"drives.0.profile.iops_max=0", "drives.0.profile.link_bytes_per_s=0", "jobs.0.rate_iops=0"}).path, "");
}

// A value that would stop simulated time: a poll that finds nothing in no time spun a
// polling loop forever at one instant (it grew the event queue to 18 GB). A look at a CQ
// costs at least 1 ns, so a zero-cost host that polls runs, and one that does not poll
// may still say 0 (the peers' model does).
TEST(InputSafety, AnEmptyPollTakesTime) {
  nlohmann::json doc = testing::ideal_scenario();
  doc["host"]["poll_empty_check_ns"] = 0;
  doc["jobs"][0]["ioengine"] = "io_uring";
  doc["policy"] = {{"name", "poll"}};
  doc["duration_us"] = 20;
  doc["warmup_us"] = 0;
  const nlohmann::json r = testing::run(doc);
  EXPECT_GT(r["aggregate"]["ios"].get<uint64_t>(), 0u);
  EXPECT_GT(r["queues"][0]["counters"]["poll_empty"].get<uint64_t>(), 0u);
  EXPECT_EQ(load_error({"host.poll_empty_check_ns=0"}).path, "");
}

TEST(InputSafety, EmpiricalCdfTimesAreBounded) {
  InputError e = load_error({R"(drives.0.profile.read={"dist":"empirical","cdf":[[0.5,100],[1.0,1e30]]})"});
  EXPECT_EQ(e.path, "/drives/0/profile/read/cdf/1");
  fs::path f = temp_file("nvmesim_cdf_huge.csv", "0.5,100\n1.0,1e30\n");
  e = load_error({R"(drives.0.profile.write={"dist":"empirical","cdf_file":")" + f.string() + "\"}"});
  EXPECT_EQ(e.str(), "/drives/0/profile/write/cdf_file: " + f.string() +
                         ":2: times must be >= 0, not decrease and be <= 10000000000 ns, got 1e+30");
}

// A bad point of a cdf_file is named at its file and line (comments and blank lines
// counted), with the pointer of the cdf_file that named the file; it was named at
// /.../cdf/N, the index of the point, a pointer into nothing the document holds.
TEST(InputSafety, CdfFilePointsAreNamedAtTheirFileAndLine) {
  const std::string at = "/drives/0/profile/read/cdf_file: ";
  auto error_of = [](const fs::path& f) {
    return load_error({R"(drives.0.profile.read={"dist":"empirical","cdf_file":")" + f.string() + "\"}"}).str();
  };
  fs::path f = temp_file("nvmesim_cdf_line.csv", "# p,ns\n0.5,100\n\n0.4,200\n1.0,300\n");
  EXPECT_EQ(error_of(f), at + f.string() + ":4: probabilities must increase strictly within (0, 1]");
  f = temp_file("nvmesim_cdf_back.csv", "0.5,300\n1.0,200\n");
  EXPECT_EQ(error_of(f), at + f.string() + ":2: times must be >= 0, not decrease and be <= 10000000000 ns, got 200.0");
  f = temp_file("nvmesim_cdf_last.csv", "0.5,100\n# end\n0.9,200\n\n");
  EXPECT_EQ(error_of(f), at + f.string() + ":3: the last probability must be 1.0");
  f = temp_file("nvmesim_cdf_none.csv", "# only a comment\n\n");
  EXPECT_EQ(error_of(f), at + f.string() + ": no points: expected 'probability,ns' lines");
  // A spreadsheet's byte-order mark is skipped, the lines keep their numbers.
  f = temp_file("nvmesim_cdf_bom.csv", "\xEF\xBB\xBF" "0.5,100\n0.4,200\n");
  EXPECT_EQ(error_of(f), at + f.string() + ":2: probabilities must increase strictly within (0, 1]");
  // Inline points keep their pointer.
  EXPECT_EQ(load_error({R"(drives.0.profile.read={"dist":"empirical","cdf":[[0.5,100],[0.4,200],[1,300]]})"}).str(),
            "/drives/0/profile/read/cdf/1: probabilities must increase strictly within (0, 1]");
}

TEST(InputSafety, CdfLinesEndAfterTheirPoint) {
  for (const char* junk : {"0.5,100 junk\n1.0,200\n", "0.5,100,7\n1.0,200\n", "0.5,100\n1.0,200x\n"}) {
    fs::path f = temp_file("nvmesim_cdf_junk.csv", junk);
    InputError e = load_error({R"(drives.0.profile.read={"dist":"empirical","cdf_file":")" + f.string() + "\"}"});
    EXPECT_EQ(e.path, "/drives/0/profile/read/cdf_file") << junk;
    EXPECT_NE(e.message.find("then the line's end"), std::string::npos) << e.message;
  }
  fs::path ok = temp_file("nvmesim_cdf_ok.csv", "0.5,100  \r\n1.0,200\n");  // trailing blanks, CRLF
  // (The profile's ranges then name /read/mean_ns, which the CDF replaced: not the file.)
  EXPECT_NE(load_error({R"(drives.0.profile.read={"dist":"empirical","cdf_file":")" + ok.string() + "\"}"}).path,
            "/drives/0/profile/read/cdf_file");
}

// A job deeper than its queue runs with what the queue holds: said, with by how much.
TEST(InputSafety, AJobDeeperThanItsQueueIsWarnedAbout) {
  auto warnings = [](std::vector<std::string> overrides) {
    LoadOptions o;
    o.overrides = std::move(overrides);
    auto r = load_scenario_file(default_scenarios_dir() + "/default.json", o);
    EXPECT_TRUE(std::holds_alternative<LoadedScenario>(r));
    std::string all;
    for (const auto& w : std::get<LoadedScenario>(r).warnings) all += w + "\n";
    return all;
  };
  const std::string w = warnings({"queue_depth=2"});
  EXPECT_NE(w.find("/jobs/0/iodepth: 1024 is more than a queue of drive nvme0 holds (1 commands"), std::string::npos) << w;
  EXPECT_NE(w.find("1023 fewer"), std::string::npos) << w;
  // QD1024 on 1024 entries (the published runs) is one short by design: no warning.
  EXPECT_EQ(warnings({}).find("iodepth"), std::string::npos);
}

// ---- files ------------------------------------------------------------------------------

TEST(InputFile, OnlyRegularFilesUpToTheCap) {
  EXPECT_TRUE(std::holds_alternative<FileError>(read_input_file("/tmp", 1 << 20)));
  EXPECT_TRUE(std::holds_alternative<FileError>(read_input_file("/dev/zero", 1 << 20)));
  EXPECT_TRUE(std::holds_alternative<FileError>(read_input_file("/proc/self/mem", 1 << 20)));
  EXPECT_TRUE(std::holds_alternative<FileError>(read_input_file(std::string(300, 'a') + ".json", 1 << 20)));
  fs::path f = temp_file("nvmesim_cap.txt", std::string(100, 'x'));
  EXPECT_TRUE(std::holds_alternative<FileError>(read_input_file(f.string(), 99)));
  auto ok = read_input_file(f.string(), 100);
  ASSERT_TRUE(std::holds_alternative<std::string>(ok));
  EXPECT_EQ(std::get<std::string>(ok).size(), 100u);
  auto dir = std::get<FileError>(read_input_file("/tmp", 1 << 20));
  EXPECT_EQ(dir.message, "cannot open file /tmp: is a directory");
}

TEST(InputSafety, ProfileAndCdfPathsThatAreNotFilesNameTheirJsonPath) {
  for (const std::string& bad : std::vector<std::string>{"/tmp", "/proc/self/mem", "/dev/zero", std::string(300, 'p') + ".json"}) {
    InputError e = load_error({"host=" + bad});
    EXPECT_EQ(e.path, "/host") << bad;
    e = load_error({"drives.3.profile=" + bad});
    EXPECT_EQ(e.path, "/drives/3/profile") << bad;
    e = load_error({R"(drives.0.profile.read={"dist":"empirical","cdf_file":")" + bad + "\"}"});
    EXPECT_EQ(e.path, "/drives/0/profile/read/cdf_file") << bad;
    e = load_error({"fio=" + bad});
    EXPECT_EQ(e.path, "/fio") << bad;
  }
  // A scenario file that is not a regular file: the message names it.
  auto r = load_scenario_file("/dev/zero", {});
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_NE(std::get<InputError>(r).message.find("/dev/zero: not a regular file"), std::string::npos);
}

TEST(InputSafety, ProfileFileNameGivenByAnOverride) {
  // "/host: must be an object" before: the override came after the profiles were read.
  EXPECT_EQ(load_error({"host=profiles/host_testbed_a.json"}).path, "");
  EXPECT_EQ(load_error({"drives.0.profile=profiles/solidigm_sb5ph27x038t.json"}).path, "");
  EXPECT_EQ(load_error({"host=profiles/nonexistent.json"}).path, "/host");
}

// ---- nesting ----------------------------------------------------------------------------

TEST(InputSafety, DeepNestingIsRefusedBeforeAnythingRecurses) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto parsed = parse_json_text(deep);
  ASSERT_TRUE(std::holds_alternative<JsonTextError>(parsed));
  EXPECT_TRUE(std::get<JsonTextError>(parsed).too_deep);
  // In an override: the path, not a crash in the type error's dump().
  EXPECT_EQ(load_error({"jobs.0.iodepth=" + deep}).path, "jobs.0.iodepth");
  // In a file.
  fs::path f = temp_file("nvmesim_deep.json", R"({"name": )" + deep + "}");
  auto r = load_scenario_file(f.string(), {});
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_NE(std::get<InputError>(r).message.find("nested deeper than"), std::string::npos);
  // A document built elsewhere (the Python edge), walked without recursion.
  json doc = json::array();
  for (int i = 0; i < 100000; ++i) doc = json::array({std::move(doc)});
  json sc = testing::ideal_scenario();
  sc["jobs"][0]["iodepth"] = std::move(doc);
  // Moved, as the Python edge does: copying a document this deep would itself recurse.
  auto deep_doc = load_scenario_json(std::move(sc), {});
  ASSERT_TRUE(std::holds_alternative<InputError>(deep_doc));
  EXPECT_EQ(std::get<InputError>(deep_doc).path, "/");
  // A value within the limit still gets a type error with an excerpt.
  json shallow = testing::ideal_scenario();
  shallow["jobs"][0]["iodepth"] = json::array({json::array({1})});
  EXPECT_EQ(doc_error(shallow).path, "/jobs/0/iodepth");
}

// A key twice in one object hid its first value (nlohmann keeps the last); a NUL byte
// ended the text for one reader and not another. Both are errors naming where.
TEST(JsonText, DuplicateKeysAndNulBytesAreRefused) {
  auto error = [](const std::string& text) {
    auto r = parse_json_text(text);
    return std::holds_alternative<JsonTextError>(r) ? std::get<JsonTextError>(r).message : std::string("parsed");
  };
  EXPECT_EQ(error(R"({"seed": "bad", "seed": 3})"),
            "invalid JSON: duplicate key at /seed (a key may appear once in an object)");
  EXPECT_NE(error(R"({"jobs": [{"a": 1}, {"b": 1, "c": {"x/y": 1, "x/y": 2}}]})").find("at /jobs/1/c/x~1y"),
            std::string::npos);
  EXPECT_NE(error(R"([[1, {"k": 1}], [2, {"k": 1, "k": 2}]])").find("at /1/1/k"), std::string::npos);
  // The same key in two objects is fine; so are equal values under other keys.
  EXPECT_EQ(error(R"({"a": {"k": 1}, "b": {"k": 1}, "c": [{"k": 1}, {"k": 2}]})"), "parsed");
  EXPECT_EQ(error(std::string("{\"a\": 1}\0garbage", 17)), "invalid JSON: a NUL byte at offset 8");
  // In a scenario file, with the file's name.
  fs::path f = temp_file("nvmesim_dup.json", R"({"name": "x", "name": "y"})");
  auto r = load_scenario_file(f.string(), {});
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_NE(std::get<InputError>(r).message.find("duplicate key at /name"), std::string::npos)
      << std::get<InputError>(r).message;
}

TEST(JsonText, DepthLimitCountsBracketsOutsideStringsAndComments) {
  auto nested = [](int n) { return std::string(n, '[') + std::string(n, ']'); };
  EXPECT_TRUE(std::holds_alternative<json>(parse_json_text(nested(limits::kMaxJsonDepth))));
  EXPECT_TRUE(std::get<JsonTextError>(parse_json_text(nested(limits::kMaxJsonDepth + 1))).too_deep);
  // The same limit as the walk over built documents.
  EXPECT_FALSE(json_depth_exceeds(std::get<json>(parse_json_text(nested(limits::kMaxJsonDepth))), limits::kMaxJsonDepth));
  std::string brackets(200, '[');
  auto r = parse_json_text("{\"a\": \"" + brackets + "\\\"\", // " + brackets + "\n /* " + brackets + " */ \"b\": 1}");
  ASSERT_TRUE(std::holds_alternative<json>(r)) << std::get<JsonTextError>(r).message;
  EXPECT_EQ(std::get<json>(r)["b"], 1);
  auto bad = parse_json_text("{\"a\": ");
  ASSERT_TRUE(std::holds_alternative<JsonTextError>(bad));
  EXPECT_FALSE(std::get<JsonTextError>(bad).too_deep);
}

TEST(InputSafety, AnEmptyKeyIsNamedByItsPointer) {
  json sc = testing::ideal_scenario();
  sc[""] = 1;
  InputError e = doc_error(sc);
  EXPECT_EQ(e.path, "/");
  EXPECT_NE(e.message.find("unknown key \"\""), std::string::npos);
  sc = testing::ideal_scenario();
  sc["jobs"][0][""] = 1;
  EXPECT_EQ(doc_error(sc).path, "/jobs/0/");
  sc = testing::ideal_scenario();
  sc["jobs"][0]["a/b~c"] = 1;
  EXPECT_EQ(doc_error(sc).path, "/jobs/0/a~1b~0c");  // RFC 6901 escapes
}

// ---- memory -----------------------------------------------------------------------------

TEST(MemoryEstimate, WrappingRequestCountIsRefusedByValidateToo) {
  // 65535 x 4096 x 16 jobs wrapped the 32-bit request count and overflowed the heap.
  std::vector<std::string> o;
  for (int i = 0; i < 4; ++i) {
    o.push_back("jobs." + std::to_string(i) + ".iodepth=65535");
    o.push_back("jobs." + std::to_string(i) + ".numjobs=4096");
  }
  InputError e = load_error(o);
  EXPECT_EQ(e.path.rfind("/jobs/", 0), 0u) << e.str();
  EXPECT_NE(e.message.find("bytes"), std::string::npos) << e.message;
  // Above the model's 2^31 request ids even with the largest limit.
  LoadOptions big;
  big.memory_limit = limits::kMaxMemoryLimitBytes;
  json sc = testing::ideal_scenario();
  sc["jobs"] = json::array();
  for (int i = 0; i < 9; ++i) sc["jobs"].push_back({{"iodepth", 65535}, {"numjobs", 4096}, {"cpus_allowed", "0"}});
  auto r = load_scenario_json(sc, big);
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_NE(std::get<InputError>(r).message.find("requests in flight"), std::string::npos);
}

TEST(MemoryEstimate, QueueMemoryDrivesAndTracesCountAgainstTheLimit) {
  InputError e = load_error({"host.cores=4096", "drives.0.profile.max_io_queues=65535",
                             "drives.0.profile.max_queue_depth=65536", "queue_depth=65536"});
  EXPECT_EQ(e.path, "/queue_depth");
  EXPECT_NE(e.message.find("--memory-limit"), std::string::npos);
  // The default scenario on 32 cores (its queues' rings then take ~13 MB) under a limit it
  // fits, and the trace buffers that push it over.
  LoadOptions small;
  small.memory_limit = 64u << 20;
  EXPECT_EQ(load_error({"host.cores=32"}, small).path, "");
  small.recording = {.trace = true, .command_trace = true};  // 4 M-event buffers each
  e = load_error({"host.cores=32"}, small);
  EXPECT_EQ(e.path, "--command-trace");
  // Drives: too many are refused before their profiles are read.
  json sc = testing::ideal_scenario();
  json d = sc["drives"][0];
  sc["drives"] = json::array();
  for (int i = 0; i < 10000; ++i) {
    d["name"] = std::to_string(i);
    sc["drives"].push_back(d);
  }
  EXPECT_EQ(doc_error(sc).path, "/drives");
}

// A drive's flash targets (media_read_ns on) are counted: a million of them on each of
// the default scenario's four drives (32 MB) take it, on 32 cores, over a 40 MB limit; the
// same drives as a pool of units (no per-unit state kept) fit.
TEST(MemoryEstimate, FlashTargetsCountAgainstTheLimit) {
  LoadOptions small;
  small.memory_limit = 40u << 20;
  std::vector<std::string> pool = {"host.cores=32"}, targets = {"host.cores=32"};
  for (int i = 0; i < 4; ++i) {
    const std::string d = "drives." + std::to_string(i) + ".profile.";
    pool.push_back(d + "units=1000000");
    pool.push_back(d + "media_read_ns=0");
    pool.push_back(d + "program_ns=0");  // the write path needs targets: off with them
    targets.push_back(d + "units=1000000");
  }
  EXPECT_EQ(load_error(pool, small).path, "");
  const InputError e = load_error(targets, small);  // named by its largest part
  EXPECT_NE(e.path, "");
  EXPECT_NE(e.message.find("drives"), std::string::npos) << e.message;
}

TEST(MemoryEstimate, ShippedScenariosFitTheDefaultLimit) {
  for (const auto& e : fs::directory_iterator(shipped("published"))) {
    auto r = load_scenario_file(e.path().string(), {});
    EXPECT_TRUE(std::holds_alternative<LoadedScenario>(r)) << e.path() << ": " << std::get<InputError>(r).str();
  }
  EXPECT_EQ(load_error({}).path, "");
}

// ---- fio --------------------------------------------------------------------------------

TEST(FioSafety, RuntimeBeyondTheLimitNamesFileAndLine) {
  for (const char* bad : {"runtime=571849066285s", "runtime=3601s", "ramp_time=99999999999999999999", "runtime=0"}) {
    auto r = fio_text_to_scenario_patch(std::string("[j]\n") + bad + "\n", "a.fio");
    ASSERT_TRUE(std::holds_alternative<InputError>(r)) << bad;
    EXPECT_EQ(std::get<InputError>(r).path, "a.fio:2") << bad;
  }
  auto ok = fio_text_to_scenario_patch("[j]\nruntime=3600s\n", "a.fio");
  ASSERT_TRUE(std::holds_alternative<json>(ok));
  EXPECT_EQ(std::get<json>(ok)["duration_us"], 3600000000);
}

TEST(FioSafety, FilenameAcceptsOnlyWhatItCanMap) {
  EXPECT_EQ(nvme_namespace_drive("/dev/nvme0n1"), 0u);
  EXPECT_EQ(nvme_namespace_drive("/dev/nvme12n3"), 12u);
  for (const char* bad : {"/dev/nvme0", "/dev/nvme1n1garbage", "/dev/nvme-1n1", "/dev/nvme-0n1", "/dev/nvme0n0",
                          "/dev/nvme0n-1", "/dev/nvme99999999999n1", "/dev/nvme4294967296n1", "/dev/nvmen1",
                          "/dev/nvme0n1p1", "/dev/sda", "", "nvme0n1"}) {
    EXPECT_FALSE(nvme_namespace_drive(bad).has_value()) << bad;
    auto r = fio_text_to_scenario_patch(std::string("[j]\nfilename=") + bad + "\n", "a.fio");
    ASSERT_TRUE(std::holds_alternative<InputError>(r)) << bad;
    EXPECT_EQ(std::get<InputError>(r).path, "a.fio:2") << bad;
  }
}

TEST(FioSafety, NumbersOfAnyMagnitude) {
  for (const char* bad : {"iodepth=99999999999999999999999", "numjobs=-1", "rwmixread=1e3", "bs=99999999999g",
                          "rate_iops=18446744073709551616"}) {
    auto r = fio_text_to_scenario_patch(std::string("[j]\n") + bad + "\n", "a.fio");
    ASSERT_TRUE(std::holds_alternative<InputError>(r)) << bad;
    EXPECT_EQ(std::get<InputError>(r).path, "a.fio:2") << bad;
  }
}

TEST(FioSafety, JobSectionsAreBounded) {
  std::string text;
  for (int i = 0; i < 5000; ++i) {
    text += "[j";
    text += std::to_string(i);
    text += "]\n";
  }
  auto r = fio_text_to_scenario_patch(text, "a.fio");
  ASSERT_TRUE(std::holds_alternative<InputError>(r));
  EXPECT_EQ(std::get<InputError>(r).path, "a.fio:4097");
}

TEST(FioSafety, JobFilesThatAreNotRegularFiles) {
  for (const char* bad : {"/dev/zero", "/tmp", "/proc/self/mem"}) {
    auto r = fio_file_to_scenario_patch(bad);
    ASSERT_TRUE(std::holds_alternative<InputError>(r)) << bad;
    EXPECT_EQ(std::get<InputError>(r).path, bad);
  }
}

// ---- the device's arithmetic ------------------------------------------------------------

TEST(DeviceArithmetic, SlowestAcceptedProfileRunsWithEventsInOrder) {
  // At the edges of the ranges (1 IOPS, 1 MB/s, 128 MiB writes, a lognormal with the
  // widest sigma) the run completes; the Debug build asserts the event order.
  json sc = testing::ideal_scenario();
  sc["duration_us"] = 20000;
  sc["warmup_us"] = 0;
  auto& p = sc["drives"][0]["profile"];
  p["iops_max"] = 1;
  p["link_bytes_per_s"] = 1e6;
  p["write"] = {{"dist", "lognormal"}, {"mean_ns", 10000000000}, {"sigma", 5}};
  sc["jobs"][0]["rw"] = "randwrite";
  sc["jobs"][0]["bs"] = 128 << 20;
  sc["jobs"][0]["iodepth"] = 64;
  auto r = testing::run(sc);
  EXPECT_EQ(r["aggregate"]["ios"].get<int64_t>(), 0);  // nothing completes in 20 ms
  EXPECT_GE(r["drives"][0]["device"]["link_utilization"].get<double>(), 0.0);
}

}  // namespace
}  // namespace nvmesim

namespace nvmesim {
namespace {

TEST(MemoryEstimate, TraceBuffersGetWhatTheLimitLeaves) {
  LoadOptions o;
  auto r = load_scenario_file(default_scenarios_dir() + "/default.json", o);
  ASSERT_TRUE(std::holds_alternative<LoadedScenario>(r));
  const Scenario& sc = std::get<LoadedScenario>(r).scenario;
  TraceCaps both = trace_caps(sc, limits::kDefaultMemoryLimitBytes, {.trace = true, .command_trace = true});
  TraceCaps one = trace_caps(sc, limits::kDefaultMemoryLimitBytes, {.command_trace = true});
  EXPECT_LT(both.command_records, one.command_records);  // two traces share the spare memory
  EXPECT_GE(both.command_records, kMinTraceRecords);
  EXPECT_LE(one.trace_events, kMaxTraceRecords);
  TraceCaps big = trace_caps(sc, limits::kMaxMemoryLimitBytes, {.trace = true, .command_trace = true});
  EXPECT_EQ(big.trace_events, kMaxTraceRecords);
  EXPECT_EQ(big.command_records, kMaxTraceRecords);
}

// A command trace or a replay keeps every request's times (RequestTimes, beside the
// requests: System::run) and the estimate counts them then, and only then: it counted the
// 32-byte Request alone.
TEST(MemoryEstimate, RequestTimesCountWithACommandTraceOrAReplay) {
  const Scenario sc = testing::load_default({}).scenario;
  const uint64_t times = 4 * 1024 * 4 * sizeof(RequestTimes);  // 4 jobs of iodepth 1024 x numjobs 4
  auto part = [&](const Recording& rec, const std::string& what) {
    for (const MemoryPart& p : estimate_memory(sc, rec).parts)
      if (p.what == what) return p.path + " " + std::to_string(p.bytes);
    return std::string("none");
  };
  EXPECT_EQ(part({.replay = true}, "request times for --replay"), "/jobs/0/iodepth " + std::to_string(times));
  EXPECT_EQ(part({.command_trace = true, .replay = true}, "request times for --command-trace"),
            "/jobs/0/iodepth " + std::to_string(times));
  const uint64_t plain = estimate_memory(sc, {}).total();
  EXPECT_EQ(estimate_memory(sc, {.replay = true}).total(), plain + times);
  EXPECT_EQ(part({.trace = true}, "request times for --replay"), "none");  // a Chrome trace reads none
  EXPECT_EQ(part({.trace = true}, "request times for --command-trace"), "none");
  // Under a limit between the two, the replay is refused and the plain run is not.
  LoadOptions o;
  o.memory_limit = plain + times / 2;
  EXPECT_EQ(load_error({}, o).str(), "");
  o.recording.replay = true;
  const InputError e = load_error({}, o);
  EXPECT_NE(e.message.find("request times for --replay " + std::to_string(times) + ","), std::string::npos) << e.str();
  EXPECT_NE(e.message.find("more than the memory limit of " + std::to_string(o.memory_limit) + " bytes"),
            std::string::npos) << e.str();
  // The trace buffers are sized on what the request times leave.
  EXPECT_LT(trace_caps(sc, plain + (100u << 20), {.command_trace = true}).command_records,
            trace_caps(sc, plain + (100u << 20) + times, {.command_trace = true}).command_records);
}

// The mode timelines (1 KB an entry kept, results included) are in the estimate and fit
// under the memory limit: a policy flipping modes on every queue once grew a run past
// 3.8 GB that was estimated at 32 MB.
TEST(MemoryEstimate, ModeTimelinesAreCountedAndCappedToTheLimit) {
  auto load = [](const std::string& policy) {
    LoadOptions o;
    o.overrides = {"policy.name=" + policy};
    auto r = load_scenario_file(default_scenarios_dir() + "/default.json", o);
    EXPECT_TRUE(std::holds_alternative<LoadedScenario>(r));
    return std::get<LoadedScenario>(r).scenario;
  };
  const Scenario wm = load("watermark"), irq = load("irq");
  auto part = [](const Scenario& sc) {
    for (const MemoryPart& p : estimate_memory(sc, {}).parts)
      if (p.what == "mode timelines") return p.bytes;
    return uint64_t{0};
  };
  EXPECT_EQ(part(irq), 0u);  // the baselines keep no timeline
  EXPECT_EQ(part(wm), 16u * kMinTimelineEntries * 1024);  // the 16 queues the jobs use
  const std::size_t small = timeline_cap(wm, 70ull << 20, {});
  EXPECT_GE(small, kMinTimelineEntries);
  EXPECT_LT(small, kModeTimelineCap);
  EXPECT_LT(timeline_cap(wm, 70ull << 20, {.trace = true, .command_trace = true}), small);  // shared with two traces
  EXPECT_EQ(timeline_cap(wm, limits::kMaxMemoryLimitBytes, {}), kModeTimelineCap);
}

TEST(MemoryEstimate, ACappedTimelineCountsWhatItDropsAndSaysSo) {
  LoadedScenario ls = testing::load_default({"policy.name=watermark", "policy.params.max_loops=1",
                                             "duration_us=5000", "warmup_us=0", "warmup_covers_policy=false"});
  RunOptions o = testing::checked();
  o.timeline_cap = 10;
  const nlohmann::json r = run_scenario(ls, o);
  uint64_t dropped = 0;
  for (const auto& q : r["queues"]) {
    EXPECT_LE(q["mode_timeline"].size(), 10u);
    dropped += q["timeline_dropped"].get<uint64_t>();
  }
  EXPECT_GT(dropped, 0u);
  bool said = false;
  for (const auto& w : r["warnings"]) said |= w.get<std::string>().find("capped at 10 entries") != std::string::npos;
  EXPECT_TRUE(said) << r["warnings"].dump();
}

TEST(MemoryEstimate, ACappedDriveTimelineCountsWhatItDropsAndSaysSo) {
  // A drive policy's timeline is capped as a queue's: what does not fit is counted, the
  // drive gets no mode_share (its kept timeline stops early), and the results say so.
  LoadedScenario ls = testing::load_default({"policy.name=coalesce_adaptive", "duration_us=3000", "warmup_us=500"});
  RunOptions o = testing::checked();
  const nlohmann::json whole = run_scenario(ls, o);
  o.timeline_cap = 0;
  const nlohmann::json capped = run_scenario(ls, o);
  ASSERT_EQ(capped["drives"].size(), whole["drives"].size());
  for (std::size_t d = 0; d < whole["drives"].size(); ++d) {
    const auto& w = whole["drives"][d];
    const auto& c = capped["drives"][d];
    EXPECT_EQ(w["timeline_dropped"].get<uint64_t>(), 0u);
    ASSERT_FALSE(w["mode_timeline"].empty());  // the warm-up covers the first cycle: it decided
    EXPECT_TRUE(w.contains("mode_share"));
    EXPECT_TRUE(c["mode_timeline"].empty());
    EXPECT_EQ(c["timeline_dropped"].get<uint64_t>(), w["mode_timeline"].size());
    EXPECT_FALSE(c.contains("mode_share"));
  }
  bool said = false;
  for (const auto& w : capped["warnings"]) said |= w.get<std::string>().find("drive(s) were capped") != std::string::npos;
  EXPECT_TRUE(said) << capped["warnings"].dump();
}

// ---- text that is not UTF-8 (fuzz findings overrides_fuzz/invalid_utf8_value and
// fio_job_fuzz/invalid_utf8_cpus_allowed): refused where it enters, naming the place,
// instead of an exception when a message or the results are written.

TEST(Utf8, OverrideValuesAndKeysAreRefusedWithTheirPath) {
  InputError e = load_error({"/jobs/0/iodepth=\xff"});
  EXPECT_EQ(e.path, "/jobs/0/iodepth");
  EXPECT_NE(e.message.find("UTF-8"), std::string::npos) << e.message;
  e = load_error({"/jobs/0/name=ok\xc3"});  // a truncated two-byte sequence
  EXPECT_EQ(e.path, "/jobs/0/name");
  e = load_error({"/jobs/0/\xfe=1"});
  EXPECT_EQ(e.path, "/jobs/0/");
  EXPECT_EQ(load_error({"/jobs/0/name=caf\xc3\xa9"}).path, "");  // valid UTF-8 loads
}

TEST(Utf8, FioLinesAreRefusedWithFileAndLine) {
  auto r = fio_text_to_scenario_patch("[job]\nrw=randread\ncpus_allowed=\xfc\n", "x.fio");
  auto* e = std::get_if<InputError>(&r);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->path, "x.fio:3");
}

TEST(Utf8, ExcerptsOfBadBytesDoNotThrow) {
  EXPECT_NO_THROW(json_excerpt(json(std::string("\xff\xfe"))));
  EXPECT_FALSE(valid_utf8("\xff"));
  EXPECT_TRUE(valid_utf8("plain"));
}

// valid_utf8 is written out; nlohmann's encoder is the reference it must agree with: every
// one- and two-byte string, and three- and four-byte strings from a lead byte over the
// continuation ranges' edges (every second byte for three), each also behind ASCII.
TEST(Utf8, AgreesWithTheJsonEncoder) {
  auto encoder_accepts = [](const std::string& s) {
    try {
      (void)json(s).dump();
      return true;
    } catch (const json::type_error&) {
      return false;
    }
  };
  int checked = 0, accepted = 0;
  auto check = [&](const std::string& s) {
    const bool ref = encoder_accepts(s);
    ASSERT_EQ(valid_utf8(s), ref) << "bytes of length " << s.size();
    ASSERT_EQ(valid_utf8("ab" + s), ref);
    ++checked;
    accepted += ref;
  };
  for (int a = 0; a < 256; ++a) {
    check(std::string(1, char(a)));
    for (int b = 0; b < 256; ++b) check({char(a), char(b)});
  }
  const int edges[] = {0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF};
  for (int a = 0xC0; a < 256; ++a)
    for (int b = 0; b < 256; ++b)
      for (int c : edges) check({char(a), char(b), char(c)});
  for (int a = 0xF0; a < 256; ++a)
    for (int b : edges)
      for (int c : edges)
        for (int d : edges) check({char(a), char(b), char(c), char(d)});
  EXPECT_GT(checked, 200000);
  EXPECT_GT(accepted, 20000);  // both sets are large, not two empty answers
}

}  // namespace
}  // namespace nvmesim
