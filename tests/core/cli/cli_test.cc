// The CLI edge as a user meets it: exit codes and messages naming the JSON path.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#ifndef NVMESIM_CLI
#error "NVMESIM_CLI must name the nvmesim binary"
#endif

namespace {

struct Outcome {
  int code;
  std::string out;  // stdout and stderr together
};

// `shell` runs first in the same shell (a trap, a ulimit, an environment variable).
Outcome cli(const std::string& args, const std::string& shell = "") {
  std::string cmd = shell + std::string(NVMESIM_CLI) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string scenario() { return std::string(NVMESIM_SCENARIOS) + "/default.json"; }

struct BadInput {
  std::string args;
  std::string expect;  // the start of the message: the path and what is wrong
};

void PrintTo(const BadInput& b, std::ostream* os) { *os << b.args; }

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, ExitsTwoNamingThePath) {
  const BadInput& b = GetParam();
  Outcome o = cli("validate " + scenario() + " " + b.args);
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("nvmesim: " + b.expect), std::string::npos) << o.out;
}

INSTANTIATE_TEST_SUITE_P(
    Paths, CliBadInput,
    ::testing::Values(
        BadInput{"--set jobs.0.iodepth=0", "/jobs/0/iodepth: must be >= 1, got 0"},
        BadInput{"--set /jobs/1/iodepth=-3", "/jobs/1/iodepth: must be >= 1, got -3"},
        BadInput{"--set queue_depth=-5", "/queue_depth: must be >= 2, got -5"},
        BadInput{"--set jobs.0.iodepth=\\\"deep\\\"", "/jobs/0/iodepth: must be an integer"},
        BadInput{"--set jobs.0.rw=randfoo", "/jobs/0/rw: must be one of"},
        BadInput{"--set jobs.0.bs=256", "/jobs/0/bs: must be >= 512 bytes, got 256"},
        BadInput{"--set jobs.0.bs=4100", "/jobs/0/bs: must be a multiple of 512"},
        BadInput{"--set jobs.0.cpus_allowed=0-199", "/jobs/0/cpus_allowed: CPU 128 does not exist"},
        BadInput{"--set jobs.0.iodeth=4", "/jobs/0/iodeth: unknown key"},
        BadInput{"--set jobs.0.iodepth_batch_submit=2000", "/jobs/0/iodepth_batch_submit: must be <= iodepth"},
        BadInput{"--set jobs.0.drives=[9]", "/jobs/0/drives/0: no such drive"},
        BadInput{"--set drives.2.profile.units=0", "/drives/2/profile/units: must be >= 1, got 0"},
        BadInput{"--set drives.0.profile.read.dist=gamma", "/drives/0/profile/read/dist: must be one of"},
        BadInput{"--set drives.0.profile.read.mean_ns=-1", "/drives/0/profile/read/mean_ns: must be >= 1"},
        // The shipped lognormal's sigma, kept when the distribution is switched, was ignored.
        BadInput{"--set drives.0.profile.read.dist=constant",
                 "/drives/0/profile/read/sigma: dist \"constant\" does not use sigma (only lognormal takes it)"},
        BadInput{"--set drives.1.profile.write.dist=exponential",
                 "/drives/1/profile/write/sigma: dist \"exponential\" does not use sigma (only lognormal takes it)"},
        BadInput{"--set host.irq_entry_ns=-10", "/host/irq_entry_ns: must be >= 0"},
        BadInput{"--set host.cores=0", "/host/cores: must be >= 1"},
        BadInput{"--set policy.name=bogus", "/policy/name: unknown policy \"bogus\""},
        BadInput{"--set policy.name=coalesce --set policy.params.thr=256", "/policy/params/thr: coalesce: thr = 256 is outside [0, 255]"},
        BadInput{"--set policy.params.nonsense=1", "/policy/params/nonsense: irq: unknown parameter"},
        BadInput{"--set policy.name=rate --set policy.params.windw=4", "/policy/params/windw: rate: unknown parameter \"windw\" (known: window,"},
        BadInput{"--set policy.name=rate --set policy.params.window=\\\"x\\\"", "/policy/params/window: must be an integer"},
        // A cross-field rule names the parameter it blames, not just /policy/params.
        BadInput{"--set policy.name=watermark --set policy.params.inflight_high=2 --set policy.params.inflight_low=3",
                 "/policy/params/inflight_high: watermark: inflight_high (2) must be greater than inflight_low (3)"},
        BadInput{"--set policy.name=watermark --set policy.params.inflight_high=1024",
                 "/policy/params/inflight_high: watermark: inflight_high (1024) must be smaller than the queue depth"},
        BadInput{"--set policy.name=poll --set jobs.0.ioengine=libaio --set jobs.0.submit_and_wait=false",
                 "/jobs/0/ioengine: policy \"poll\" polls queues"},
        BadInput{"--set jobs.0.ioengine=libaio", "/jobs/0/submit_and_wait: only io_uring submits and waits in one call"},
        BadInput{"--set duration_us=0", "/duration_us: must be >= 1, got 0"},
        BadInput{"--set jobs=[]", "/jobs: must be a non-empty array"},
        BadInput{"--set jobs.7.iodepth=1", "/jobs/7: index out of range"},
        BadInput{"--set noequals", "override must be path=value"},
        BadInput{"--seed abc", "--seed: must be a non-negative integer"},
        // Issue 8: numbers of any magnitude, range-checked before conversion.
        BadInput{"--set duration_us=1e19", "/duration_us: must be <= 3600000000, got 1e+19"},
        BadInput{"--set warmup_us=-1e300", "/warmup_us: must be >= 0"},
        BadInput{"--set jobs.0.cpus_allowed=[4294967296]", "/jobs/0/cpus_allowed: must be a CPU list"},
        BadInput{"--set jobs.0.cpus_allowed=4294967296", "/jobs/0/cpus_allowed: must be a CPU list"},
        BadInput{"--set jobs.0.drives=[4294967296]", "/jobs/0/drives/0: no such drive"},
        BadInput{"--set seed=18446744073709551616", "/seed: must be <= 18446744073709551615"},
        BadInput{"--seed 18446744073709551616", "--seed: must be a non-negative integer up to 18446744073709551615"},
        BadInput{"--seed -1", "--seed: must be a non-negative integer"},
        BadInput{"--set drives.0.profile.iops_max=1e-9", "/drives/0/profile/iops_max: must be 0 (no ceiling) or >= 1"},
        BadInput{"--set drives.1.profile.link_bytes_per_s=1e-300", "/drives/1/profile/link_bytes_per_s: must be 0 (no ceiling) or >= 1000000"},
        BadInput{"--set jobs.0.rate_iops=1e-300", "/jobs/0/rate_iops: must be 0 (closed loop) or >= 0.001"},
        BadInput{"--set 'drives.0.profile.read={\"dist\":\"empirical\",\"cdf\":[[0.5,1],[1,1e30]]}'",
                 "/drives/0/profile/read/cdf/1: times must be >= 0, not decrease and be <= 10000000000 ns"},
        // Files that are not regular files, in every file slot.
        BadInput{"--set host=/tmp", "/host: cannot open file /tmp: is a directory"},
        BadInput{"--set host=/proc/self/mem", "/host: cannot read file /proc/self/mem"},
        BadInput{"--set drives.2.profile=/dev/zero", "/drives/2/profile: cannot open file /dev/zero: not a regular file"},
        BadInput{"--set host=" + std::string(300, 'h') + ".json", "/host: cannot open file"},
        BadInput{"--set 'drives.0.profile.read={\"dist\":\"empirical\",\"cdf_file\":\"/dev/zero\"}'",
                 "/drives/0/profile/read/cdf_file: cannot open file /dev/zero: not a regular file"},
        BadInput{"--set fio=/dev/zero", "/fio: /dev/zero: cannot open file /dev/zero: not a regular file"},
        // Memory: estimated before anything is allocated, refused naming the path and bytes.
        BadInput{"--set jobs.0.iodepth=65535 --set jobs.0.numjobs=4096", "/jobs/0/iodepth: the run would need about"},
        BadInput{"--set host.cores=4096 --set queue_depth=65536 --set drives.0.profile.max_queue_depth=65536 "
                 "--set drives.0.profile.max_io_queues=65535",
                 "/queue_depth: the run would need about"},
        BadInput{"--memory-limit 1m", "/queue_depth: the run would need about"},
        BadInput{"--memory-limit 1k", "--memory-limit: must be a size from 1m to 1024g"},
        BadInput{"--memory-limit 99999999999999999999", "--memory-limit: must be a size"},
        // Contradictions each value alone would not show (the bad-input audit).
        BadInput{"--set 'jobs.0.drives=[0,0]'", "/jobs/0/drives/1: drive nvme0 is listed twice (also at /jobs/0/drives/0)"},
        BadInput{"--set 'jobs.0.drives=[\"nvme0\",0]'", "/jobs/0/drives/1: drive nvme0 is listed twice"},
        BadInput{"--set drives.0.profile.completion_round_max=4",
                 "/drives/0/profile/completion_round_max: must be 0 without completion_round_ns"},
        BadInput{"--set 'drives.0.profile.read={\"dist\":\"empirical\",\"cdf\":[[1,100]],\"cdf_file\":\"x.csv\"}'",
                 "/drives/0/profile/read/cdf_file: give \"cdf\" or \"cdf_file\", not both"},
        // Small ones.
        BadInput{"--set '=1'", "override must be path=value"},
        BadInput{"--set 'jobs.0.iodepth=" + std::string(2000, '[') + std::string(2000, ']') + "'",
                 "jobs.0.iodepth: invalid JSON: nested deeper than 64 levels"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return "case" + std::to_string(info.index); });

std::string temp(const std::string& name, const std::string& text) {
  auto p = std::filesystem::temp_directory_path() / name;
  std::ofstream(p) << text;
  return p.string();
}

TEST(Cli, HelpExitsZeroAtTheTopAndForEveryCommand) {
  for (const char* args : {"--help", "-h", "run --help", "validate --help", "report --help", "policies --help",
                           "schema --help", "calibrate --help"}) {
    Outcome o = cli(args);
    EXPECT_EQ(o.code, 0) << args << "\n" << o.out;
    EXPECT_NE(o.out.find("Usage: nvmesim"), std::string::npos) << args << "\n" << o.out;
  }
  EXPECT_NE(cli("run --help").out.find("--memory-limit"), std::string::npos);
}

TEST(Cli, ScenarioPathsThatAreNotFilesExitTwo) {
  for (std::string path : {std::string("/tmp"), std::string("/proc/self/mem"), std::string("/dev/zero"),
                           "/tmp/" + std::string(300, 's') + ".json"}) {
    Outcome o = cli("run " + path);
    EXPECT_EQ(o.code, 2) << path << "\n" << o.out;
    EXPECT_NE(o.out.find("nvmesim: cannot "), std::string::npos) << o.out;
  }
  Outcome o = cli("validate " + temp("nvmesim_cli_deep.json", "{\"name\": " + std::string(100000, '[') +
                                     std::string(100000, ']') + "}"));
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("nested deeper than 64 levels"), std::string::npos) << o.out;
}

TEST(Cli, FioFilesNameFileAndLine) {
  struct Case {
    std::string body, option;
  };
  for (const Case& c : {Case{"runtime=571849066285s", "runtime"}, Case{"filename=/dev/nvme0", "filename"},
                        Case{"filename=/dev/nvme1n1garbage", "filename"}, Case{"filename=/dev/nvme-1n1", "filename"},
                        Case{"iodepth=99999999999999999999", "iodepth"}, Case{"bs=99999999999g", "bs"}}) {
    std::string f = temp("nvmesim_cli_case.fio", "[j]\n" + c.body + "\n");
    Outcome o = cli("validate " + f);
    EXPECT_EQ(o.code, 2) << c.body << "\n" << o.out;
    EXPECT_NE(o.out.find(f + ":2: option '" + c.option + "'"), std::string::npos) << o.out;
  }
}

TEST(Cli, EmptyKeyIsNamedAndAProfileFileNameMayBeSet) {
  std::ifstream in(scenario());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string f = temp("nvmesim_cli_emptykey.json", "{\"\": 1, " + text.substr(text.find('{') + 1));
  Outcome o = cli("validate " + f + " --set host=" + std::string(NVMESIM_SCENARIOS) + "/profiles/host_testbed_a.json");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("nvmesim: /: unknown key \"\""), std::string::npos) << o.out;
  o = cli("validate " + scenario() + " --set host=profiles/host_testbed_a.json");
  EXPECT_EQ(o.code, 0) << o.out;
}

TEST(Cli, UnwritableOutputsFailBeforeTheRun) {
  for (const char* opt : {"-o", "--trace", "--command-trace"}) {
    Outcome o = cli("run " + scenario() + " " + opt + " /nonexistent/dir/out");
    EXPECT_EQ(o.code, 2) << o.out;
    EXPECT_NE(o.out.find(std::string("nvmesim: ") + opt + ": cannot write /nonexistent/dir/out: No such file or directory"),
              std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("wall"), std::string::npos) << "nothing was simulated\n" << o.out;
  }
  Outcome o = cli("run " + scenario() + " --trace-window 5:99999999999999999999");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("nvmesim: --trace-window: must be FROM_US:TO_US"), std::string::npos) << o.out;
}

TEST(Cli, FailedWritesExitOne) {
  const std::string run = "run " + scenario() + " --set duration_us=1000 --set warmup_us=0 -q ";
  for (const char* opt : {"-o", "--trace", "--command-trace"}) {
    Outcome o = cli(run + opt + " /dev/full");
    EXPECT_EQ(o.code, 1) << opt << "\n" << o.out;
    EXPECT_NE(o.out.find("nvmesim: cannot write /dev/full: No space left on device"), std::string::npos) << o.out;
  }
  // stdout too (the message goes to stderr, which the harness sends along with it).
  EXPECT_EQ(cli("schema >/dev/full").code, 1);
  EXPECT_EQ(cli("policies >/dev/full").code, 1);
}

TEST(Cli, SeedsAboveTwoToTheSixtyThreeGiveDifferentRuns) {
  auto a = std::filesystem::temp_directory_path() / "nvmesim_cli_seed_a.json";
  auto b = std::filesystem::temp_directory_path() / "nvmesim_cli_seed_b.json";
  const std::string run = "run " + scenario() + " --set duration_us=2000 --set warmup_us=500 -q ";
  ASSERT_EQ(cli(run + "--seed 18446744073709551615 -o " + a.string()).code, 0);
  ASSERT_EQ(cli(run + "--seed 9223372036854775808 -o " + b.string()).code, 0);
  std::ifstream ia(a), ib(b);
  std::string ta((std::istreambuf_iterator<char>(ia)), std::istreambuf_iterator<char>());
  std::string tb((std::istreambuf_iterator<char>(ib)), std::istreambuf_iterator<char>());
  EXPECT_NE(ta.find("\"seed\": 18446744073709551615"), std::string::npos);
  EXPECT_NE(tb.find("\"seed\": 9223372036854775808"), std::string::npos);
  EXPECT_NE(ta.substr(ta.find("\"aggregate\"")), tb.substr(tb.find("\"aggregate\"")));
}

// The default scenario is two independent partitions (two drives behind one MSI-X path,
// their jobs and their cores): the results file is the same whichever number of threads
// simulates them.
TEST(Cli, ThreadsDoNotChangeTheResultsFile) {
  const std::string run = "run " + scenario() + " --set duration_us=2000 --set warmup_us=1000 ";
  std::vector<std::string> texts;
  for (const char* n : {"1", "2", "4"}) {
    auto path = std::filesystem::temp_directory_path() / (std::string("nvmesim_cli_threads_") + n + ".json");
    Outcome o = cli(run + "--threads " + n + " -o " + path.string());
    ASSERT_EQ(o.code, 0) << o.out;
    EXPECT_NE(o.out.find("2 partition(s)"), std::string::npos) << o.out;
    std::ifstream in(path);
    texts.emplace_back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(texts[0].size(), 1000u);
  EXPECT_EQ(texts[1], texts[0]);
  EXPECT_EQ(texts[2], texts[0]);
}

TEST(Cli, BadThreadsExitTwoNamingTheOption) {
  for (const char* bad : {"0", "-1", "abc", "1025", "1.5"}) {
    Outcome o = cli("run " + scenario() + " --set duration_us=100 -q --threads " + bad);
    EXPECT_EQ(o.code, 2) << bad << ": " << o.out;
    EXPECT_NE(o.out.find("--threads: must be an integer from 1 to 1024"), std::string::npos) << o.out;
  }
}

TEST(Cli, MissingAndMalformedFilesExitTwo) {
  Outcome o = cli("run /nonexistent/scenario.json");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find("cannot open file"), std::string::npos) << o.out;
  auto bad = std::filesystem::temp_directory_path() / "nvmesim_cli_bad.json";
  std::ofstream(bad) << "{ \"seed\": 1, ";
  o = cli("run " + bad.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find("invalid JSON"), std::string::npos) << o.out;
}

TEST(Cli, UnsupportedFioOptionNamesFileAndLine) {
  auto f = std::filesystem::temp_directory_path() / "nvmesim_cli_bad.fio";
  std::ofstream(f) << "[global]\nioengine=io_uring\n\n[j]\niodepth=4\nverify=md5\n";
  Outcome o = cli("validate " + f.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find(f.string() + ":6: option 'verify' is not supported"), std::string::npos) << o.out;
}

TEST(Cli, RunWritesResultsAndSummary) {
  auto out = std::filesystem::temp_directory_path() / "nvmesim_cli_results.json";
  Outcome o = cli("run " + scenario() + " --set duration_us=2000 --set warmup_us=1000 --seed 5 -o " + out.string());
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("IOPS"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("simulated I/Os per wall-second"), std::string::npos) << o.out;
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"seed\": 5"), std::string::npos);
  EXPECT_EQ(text.find("wall"), std::string::npos) << "no wall-clock figure in the results file";
}

// --check-invariants: the results are checked before they are written; a run that keeps
// them exits 0 with the same file as without the check.
TEST(Cli, CheckInvariantsKeepsAGoodRunsResults) {
  auto dir = std::filesystem::temp_directory_path();
  const std::string base = "run " + scenario() + " --set duration_us=2000 --set warmup_us=500 -q -o ";
  Outcome a = cli(base + (dir / "nvmesim_cli_inv_a.json").string());
  Outcome b = cli(base + (dir / "nvmesim_cli_inv_b.json").string() + " --check-invariants");
  EXPECT_EQ(a.code, 0) << a.out;
  EXPECT_EQ(b.code, 0) << b.out;
  auto text = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  EXPECT_EQ(text(dir / "nvmesim_cli_inv_a.json"), text(dir / "nvmesim_cli_inv_b.json"));
}

// -q prints nothing but errors; --duration-us and --warmup-us set the window after every
// --set, as ab's options of the same names do.
TEST(Cli, QuietPrintsNothingAndTheWindowHasItsOwnOptions) {
  auto out = std::filesystem::temp_directory_path() / "nvmesim_cli_window.json";
  Outcome o = cli("run " + scenario() + " --set duration_us=9000 --duration-us 2000 --warmup-us 500 -q -o " + out.string());
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_EQ(o.out, "");
  std::ifstream in(out);
  const auto r = nlohmann::json::parse(in);
  EXPECT_EQ(r["window_ns"], 2'000'000);
  EXPECT_EQ(r["scenario"]["warmup_us"], 500);
  for (const char* bad : {"--duration-us -5", "--warmup-us 1.5", "--duration-us ''"}) {
    Outcome b = cli("run " + scenario() + " " + bad + " -q");
    EXPECT_EQ(b.code, 2) << bad;
    EXPECT_NE(b.out.find(std::string(bad).substr(0, std::string(bad).find(' '))), std::string::npos) << b.out;
  }
  EXPECT_NE(cli("run " + scenario() + " --duration-us 0 -q").out.find("/duration_us: must be >= 1"), std::string::npos);
}

// A fio job file names its own run, and the drives its jobs leave idle get one line.
TEST(Cli, AFioJobFileNamesItsRunAndItsIdleDrives) {
  auto job = std::filesystem::temp_directory_path() / "nvmesim_cli_job.fio";
  std::ofstream(job) << "[j]\nrw=randread\niodepth=8\nfilename=/dev/nvme2n1\n";
  Outcome o = cli("run " + job.string() + " --duration-us 2000 --warmup-us 500");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_EQ(o.out.rfind("fio job file nvmesim_cli_job.fio on the default testbed", 0), 0u) << o.out;
  EXPECT_NE(o.out.find("  nvme2     IOPS"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("  idle drives: nvme0, nvme1, nvme3\n"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("nvme0     IOPS"), std::string::npos) << o.out;
}

TEST(Cli, FioJsonFormatWritesFiosLayout) {
  auto out = std::filesystem::temp_directory_path() / "nvmesim_cli_fio.json";
  Outcome o = cli("run " + scenario() + " --set duration_us=2000 --set warmup_us=1000 -q --format fio-json -o " +
                  out.string());
  ASSERT_EQ(o.code, 0) << o.out;
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in);
  ASSERT_TRUE(doc.contains("jobs"));
  ASSERT_FALSE(doc["jobs"].empty());
  EXPECT_GT(doc["jobs"][0]["read"]["iops"].get<double>(), 0);
  EXPECT_EQ(cli("run " + scenario() + " --format xml -o " + out.string()).code, 2);
}

// ab, compare and tune are the Python package's: the CLI hands every argument over unchanged.
TEST(Cli, AbAndCompareReachThePythonPackage) {
  Outcome ab = cli("ab --help");
  EXPECT_EQ(ab.code, 0) << ab.out;
  EXPECT_NE(ab.out.find("usage: nvmesim ab"), std::string::npos) << ab.out;
  Outcome list = cli("ab " + std::string(NVMESIM_SCENARIOS) + "/matrices/policy_a_eval.json --list");
  EXPECT_EQ(list.code, 0) << list.out;
  EXPECT_NE(list.out.find("512 cases"), std::string::npos) << list.out;
  EXPECT_EQ(cli("ab /nonexistent/matrix.json --list").code, 2);
  Outcome cmp = cli("compare --help");
  EXPECT_EQ(cmp.code, 0) << cmp.out;
  EXPECT_NE(cmp.out.find("usage: nvmesim compare"), std::string::npos) << cmp.out;
  EXPECT_EQ(cli("compare /nonexistent/a.json /nonexistent/b.json").code, 2);
  Outcome tune = cli("tune --help");
  EXPECT_EQ(tune.code, 0) << tune.out;
  EXPECT_NE(tune.out.find("usage: nvmesim tune"), std::string::npos) << tune.out;
  EXPECT_EQ(cli("tune /nonexistent/matrix.json --policy rate --param poll_period_ns=1000:20000").code, 2);
}

// A venv's python3 first on PATH (a directory with pyvenv.cfg and bin/python3, as
// `python3 -m venv` makes, without system site-packages), a PYTHONHOME and a PYTHONPATH
// into nowhere: the hand-off still runs Debian's interpreter with its own packages.
TEST(Cli, AbAndCompareIgnoreAVenvFirstOnPath) {
  const auto venv = std::filesystem::temp_directory_path() / "nvmesim_cli_fake_venv";
  std::filesystem::remove_all(venv);
  std::filesystem::create_directories(venv / "bin");
  std::filesystem::create_symlink("/usr/bin/python3", venv / "bin" / "python3");
  std::ofstream(venv / "pyvenv.cfg") << "home = /usr/bin\ninclude-system-site-packages = false\n";
  const std::string env = "PATH=" + (venv / "bin").string() +
                          ":$PATH PYTHONHOME=/nonexistent PYTHONPATH=/nonexistent/site-packages ";
  Outcome cmp = cli("compare --help", env);
  EXPECT_EQ(cmp.code, 0) << cmp.out;
  EXPECT_NE(cmp.out.find("usage: nvmesim compare"), std::string::npos) << cmp.out;
  Outcome list = cli("ab " + std::string(NVMESIM_SCENARIOS) + "/matrices/policy_a_eval.json --list", env);
  EXPECT_EQ(list.code, 0) << list.out;
  EXPECT_NE(list.out.find("512 cases"), std::string::npos) << list.out;
}

TEST(Cli, SchemaIsJsonAndUsageErrorsExitTwo) {
  Outcome o = cli("schema");
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("\"$schema\""), std::string::npos);
  EXPECT_EQ(cli("").code, 2);
  EXPECT_EQ(cli("frobnicate").code, 2);
  EXPECT_EQ(cli("run " + scenario() + " --bogus").code, 2);
}


// ---- outputs: written to a temporary beside the target, renamed over it on success -----

// The files in `dir` named `name`, or after it as a temporary is: the target and any one left
// beside it (".NAME.PID.N.tmp").
std::vector<std::string> files_like(const std::filesystem::path& dir, const std::string& name) {
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::string f = e.path().filename().string();
    if (f == name || f.rfind("." + name + ".", 0) == 0) found.push_back(f);
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A fresh directory holding `name` with the bytes "previous run\n".
std::filesystem::path dir_with_previous(const std::string& dir_name, const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / dir_name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << "previous run\n";
  return dir;
}

TEST(CliOutputs, AnUnwritableLaterOutputLeavesAnEarlierOneUntouched) {
  const auto dir = dir_with_previous("nvmesim_cli_atomic_later", "out.json");
  const std::string run = "run " + scenario() + " --set duration_us=1000 --set warmup_us=0 -q -o " +
                          (dir / "out.json").string();
  for (const char* opt : {"--trace", "--command-trace"}) {
    Outcome o = cli(run + " " + opt + " /nonexistent/dir/t");
    EXPECT_EQ(o.code, 2) << o.out;
    EXPECT_NE(o.out.find(std::string("nvmesim: ") + opt + ": cannot write /nonexistent/dir/t"), std::string::npos)
        << o.out;
    EXPECT_EQ(read_text(dir / "out.json"), "previous run\n");
    EXPECT_EQ(files_like(dir, "out.json"), std::vector<std::string>{"out.json"}) << "no temporary left";
  }
}

// A write that fails half-way (the file size limit: write(2) returns EFBIG once the
// results pass 512 bytes) is exit 1 naming the file, and the previous file survives whole.
TEST(CliOutputs, AFailedWriteLeavesThePreviousFileAndNoPartialOne) {
  const auto dir = dir_with_previous("nvmesim_cli_atomic_write", "out.json");
  const std::string out = (dir / "out.json").string();
  Outcome o = cli("run " + scenario() + " --set duration_us=1000 --set warmup_us=0 -q -o " + out,
                  "trap '' XFSZ; ulimit -f 1; ");
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_NE(o.out.find("nvmesim: cannot write " + out + ": File too large"), std::string::npos) << o.out;
  EXPECT_EQ(read_text(out), "previous run\n");
  EXPECT_EQ(files_like(dir, "out.json"), std::vector<std::string>{"out.json"}) << "no temporary left";
  // The same run without the limit replaces it.
  o = cli("run " + scenario() + " --set duration_us=1000 --set warmup_us=0 -q -o " + out);
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(read_text(out).find("\"format\""), std::string::npos);
  EXPECT_EQ(files_like(dir, "out.json"), std::vector<std::string>{"out.json"});
}

// A symbolic link to the results stays a link; the file it names is replaced.
TEST(CliOutputs, ALinkIsFollowed) {
  const auto dir = dir_with_previous("nvmesim_cli_atomic_link", "real.json");
  std::filesystem::create_symlink("real.json", dir / "link.json");
  Outcome o = cli("run " + scenario() + " --set duration_us=1000 --set warmup_us=0 -q -o " + (dir / "link.json").string());
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.json"));
  EXPECT_NE(read_text(dir / "real.json").find("\"format\""), std::string::npos);
}

TEST(CliOutputs, EmptyPathsAreRefusedNamingTheOption) {
  for (const char* opt : {"--output", "--trace", "--command-trace", "--replay", "--replay-diff"}) {
    Outcome o = cli("run " + scenario() + " -q --set duration_us=1000 " + opt + " ''");
    EXPECT_EQ(o.code, 2) << opt << "\n" << o.out;
    EXPECT_NE(o.out.find(std::string("nvmesim: ") + opt + ": must name a file"), std::string::npos) << o.out;
  }
  Outcome o = cli("run " + scenario() + " -q -o ''");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("nvmesim: --output: must name a file"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("wall"), std::string::npos) << "nothing was simulated\n" << o.out;
  // An empty drive name was taken as none: the trace mapped as if the option were not given.
  o = cli("run " + scenario() + " -q --set duration_us=1000 --replay x.csv --replay-drive ''");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("nvmesim: --replay-drive: must name a drive of the scenario"), std::string::npos) << o.out;
  for (const char* opt : {"-o", "--report"}) {
    o = cli(std::string("calibrate x.json ") + opt + " ''");
    EXPECT_EQ(o.code, 2) << opt << "\n" << o.out;
    EXPECT_NE(o.out.find("must name a"), std::string::npos) << o.out;
  }
}

// ---- nvmesim calibrate ---------------------------------------------------------------

// One drive, one job at QD `qd`, short: the measured runs of the calibrate tests.
// `tag` names a file of the test's own: tests run in parallel, and one rewriting a file
// another is reading can hand it an empty scenario.
std::string small_scenario(int qd, const std::string& tag = "") {
  return temp("nvmesim_cal_qd" + std::to_string(qd) + tag + ".json",
              R"({"name": "small", "seed": 1, "duration_us": 8000, "warmup_us": 1000,
    "host": "profiles/host_testbed_a.json", "queue_depth": 1024,
    "drives": [{"name": "nvme0", "profile": "profiles/solidigm_sb5ph27x038t.json"}],
    "policy": {"name": "irq"},
    "jobs": [{"name": "j", "ioengine": "io_uring", "rw": "randread", "bs": "4k", "iodepth": )" +
                  std::to_string(qd) + R"(, "cpus_allowed": "0", "drives": ["nvme0"]}]})");
}

TEST(CliCalibrate, BadSpecsExitTwoNamingThePath) {
  const std::string run = R"({"name": "r", "scenario": ")" + small_scenario(4) + R"(", "measured": {"iops": 5e4}})";
  const std::pair<std::string, std::string> cases[] = {
      {R"({"format": "nvmesim-calibrate/1", "runs": [)" + run + R"(], "parameters": [{"path": "/host/fsleep_slack_pct"}]})",
       "/parameters/0: needs min and max: the profile documents no range for /fsleep_slack_pct"},
      {R"({"format": "nvmesim-calibrate/1", "runs": [)" + run +
           R"(], "parameters": [{"path": "/seed", "min": 1, "max": 2}]})",
       "/parameters/0/path: must name a profile value"},
      {R"({"format": "nvmesim-calibrate/1", "runs": [)" + run +
           R"(], "parameters": [{"path": "/host/no_such_ns", "min": 1, "max": 2}]})",
       "/parameters/0/path: in run \"r\"'s scenario: no value at /host/no_such_ns"},
      {R"({"format": "nvmesim-calibrate/1", "runs": [{"name": "r", "role": "train", "measured": {"iops": 1}}],
           "parameters": [{"path": "/host/irq_entry_ns", "min": 1, "max": 2}]})",
       "/runs/0/role: must be one of"},
      {R"({"format": "nvmesim-calibrate/1", "runs": [{"name": "r", "scenario": ")" + small_scenario(4) +
           R"(", "measured": {"iops": 1, "bandwidth": 3}}], "parameters": [{"path": "/host/irq_entry_ns", "min": 1, "max": 2}]})",
       "/runs/0/measured/bandwidth: not a metric name"},
      {R"({"format": "nvmesim-calibrate/1", "runs": [)" + run +
           R"(], "parameters": [{"path": "/host/irq_entry_ns", "min": 0, "max": 200000000}]})",
       "/parameters: at every max, run \"r\" does not load: /host/irq_entry_ns: must be <="},
      // A run that does not load whatever the parameters: its own `set`, or its scenario, is
      // named, not the box (it was "/parameters: at every min, ...").
      {R"({"format": "nvmesim-calibrate/1", "runs": [{"name": "r", "scenario": ")" + small_scenario(4) +
           R"(", "set": ["/duration_us=-5"], "measured": {"iops": 5e4}}],
           "parameters": [{"path": "/host/irq_entry_ns", "min": 1, "max": 2}]})",
       "/runs/0/set: run \"r\" does not load as given: /duration_us: must be >= 1, got -5"},
      {R"({"format": "nvmesim-calibrate/1", "runs": [)" + run + R"(, {"name": "q", "scenario": ")" +
           temp("nvmesim_cal_qd0.json", R"({"name": "small", "seed": 1, "duration_us": 8000, "warmup_us": 1000,
    "host": "profiles/host_testbed_a.json",
    "drives": [{"name": "nvme0", "profile": "profiles/solidigm_sb5ph27x038t.json"}],
    "jobs": [{"name": "j", "rw": "randread", "bs": "4k", "iodepth": 0, "drives": ["nvme0"]}]})") +
           R"(", "measured": {"iops": 5e4}}], "parameters": [{"path": "/host/irq_entry_ns", "min": 1, "max": 2}]})",
       "/runs/1: run \"q\" does not load as given: /jobs/0/iodepth: must be >= 1, got 0"},
      // Both corners load (0.2 <= 0.3, 0.8 <= 0.9) but min's max is above max's min: the
      // fit tried initial_buffer_fill_min 0.8 with initial_buffer_fill_max 0.3 and stopped
      // in an internal error (exit 1, "std::get: wrong index for variant").
      {R"({"format": "nvmesim-calibrate/1", "runs": [)" + run +
           R"(], "parameters": [{"path": "/drives/0/profile/initial_buffer_fill_min", "min": 0.2, "max": 0.8},
                              {"path": "/drives/0/profile/initial_buffer_fill_max", "min": 0.3, "max": 0.9}]})",
       "/parameters: with /drives/0/profile/initial_buffer_fill_min (/parameters/0) at its max (0.8) and "
       "/drives/0/profile/initial_buffer_fill_max (/parameters/1) at its min (0.3), a point of the box the fit may "
       "try, run \"r\" does not load: /drives/0/profile/initial_buffer_fill_min: must be <= initial_buffer_fill_max "
       "(0.3), got 0.8; narrow the ranges so that it does"},
      // A results document without a figure: the reader compare shares names its path.
      {R"({"format": "nvmesim-calibrate/1", "runs": [{"name": "r", "scenario": ")" + small_scenario(4) +
           R"(", "measured": ")" +
           temp("nvmesim_cal_bad_results.json", R"({"format": "nvmesim-results/1", "aggregate": {"iops": 5}, "cores": []})") +
           R"("}], "parameters": [{"path": "/host/irq_entry_ns", "min": 1, "max": 2}]})",
       "nvmesim_cal_bad_results.json)/aggregate/irqs_per_io: missing or not a number"},
  };
  for (const auto& [text, expect] : cases) {
    Outcome o = cli("calibrate -q " + temp("nvmesim_cal_bad.json", text));
    EXPECT_EQ(o.code, 2) << text << "\n" << o.out;
    EXPECT_NE(o.out.find(expect), std::string::npos) << expect << "\n" << o.out;
  }
}

// The bad-input audit of calibrate's spec: a parameter path that is no JSON pointer and a
// published row of the wrong types were internal errors (exit 1, nlohmann's words), a
// published range [high, low] was fitted to its middle, and a change of -100% was named
// at a "measured" the run did not have.
TEST(CliCalibrate, BadParameterPathsAndPublishedRowsExitTwoNamingThem) {
  auto published = [](const std::string& block) {
    std::string text = read_text(small_scenario(4, "_published"));
    return temp("nvmesim_cal_published.json", text.substr(0, text.rfind('}')) + ", \"published\": " + block + "}");
  };
  auto spec = [](const std::string& run, const std::string& path) {
    return temp("nvmesim_cal_audit.json", R"({"format": "nvmesim-calibrate/1", "runs": [)" + run +
                                              R"(], "parameters": [{"path": ")" + path + R"(", "min": 100, "max": 2000}]})");
  };
  const std::string measured = R"({"name": "r", "scenario": ")" + small_scenario(4, "_published") +
                               R"(", "measured": {"iops": 5e4}})";
  Outcome o = cli("calibrate -q " + spec(measured, "/host/irq~entry_ns"));
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("/parameters/0/path: \"~\" at character 9 is not ~0 or ~1: a JSON pointer writes \"~\" as ~0 "
                       "and \"/\" as ~1\n"),
            std::string::npos) << o.out;
  const std::string change = R"("source": "x", "baseline_policy": "irq", "policy": "rate")";
  const std::pair<std::string, std::string> rows[] = {
      {"{" + change + R"(, "change_pct_range": ["a", "b"]})", "/published/change_pct_range: must be [low, high] percentages"},
      {"{" + change + R"(, "change_pct_range": [10, -10]})", "/published/change_pct_range: must be [low, high] percentages"},
      {R"({"source": "x", "baseline_policy": 5, "policy": "rate", "change_pct": 3})",
       "/published/baseline_policy: must be a string, got 5"},
      {"[]", "/published: must be an object"},
  };
  for (const auto& [block, expect] : rows) {
    const std::string file = published(block);
    o = cli("calibrate -q " + spec(R"({"name": "r", "published": ")" + file + R"("})", "/host/irq_entry_ns"));
    EXPECT_EQ(o.code, 2) << block << "\n" << o.out;
    EXPECT_NE(o.out.find("/runs/0/published: " + file + ": " + expect + "\n"), std::string::npos) << o.out;
  }
  o = cli("calibrate -q " + spec(R"({"name": "r", "published": ")" + published("{" + change + R"(, "change_pct": -100})") +
                                     R"("})", "/host/irq_entry_ns"));
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("/runs/0/published: iops_ratio must be > 0 to fit (log ratio)\n"), std::string::npos) << o.out;
}

// A fit that fails (exit 2: a run does not load at a corner of the box) leaves the
// previous profile and report as they were, and no temporary beside them.
TEST(CliCalibrate, AFailedFitLeavesThePreviousOutputs) {
  const auto dir = dir_with_previous("nvmesim_cli_calibrate_keep", "profile.json");
  std::filesystem::create_directories(dir / "report");
  std::ofstream(dir / "report" / "report.json") << "previous run\n";
  std::ofstream(dir / "report" / "report.md") << "previous run\n";
  const std::string spec = temp("nvmesim_cal_keep.json",
                                R"({"format": "nvmesim-calibrate/1", "runs": [{"name": "r", "scenario": ")" +
                                    small_scenario(4) + R"(", "measured": {"iops": 5e4}}],
      "parameters": [{"path": "/host/irq_entry_ns", "min": 0, "max": 200000000}]})");
  Outcome o = cli("calibrate -q " + spec + " -o " + (dir / "profile.json").string() + " --report " +
                  (dir / "report").string());
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("/parameters: at every max"), std::string::npos) << o.out;
  EXPECT_EQ(read_text(dir / "profile.json"), "previous run\n");
  EXPECT_EQ(read_text(dir / "report" / "report.json"), "previous run\n");
  EXPECT_EQ(read_text(dir / "report" / "report.md"), "previous run\n");
  EXPECT_EQ(files_like(dir, "profile.json"), std::vector<std::string>{"profile.json"});
  EXPECT_EQ(files_like(dir / "report", "report.json"), std::vector<std::string>{"report.json"});
  EXPECT_EQ(files_like(dir / "report", "report.md"), std::vector<std::string>{"report.md"});
}

TEST(CliCalibrate, DatesMustBeOnTheCalendar) {
  for (const char* bad : {"2026-13-01", "2026-02-29", "2026-04-31", "2026-00-10", "2026-1-01", "26-01-01",
                          "2026-01-01x", "today"}) {
    Outcome o = cli(std::string("calibrate -q x.json --date ") + bad);
    EXPECT_EQ(o.code, 2) << bad << "\n" << o.out;
    EXPECT_NE(o.out.find(std::string("nvmesim: --date: must be a calendar date YYYY-MM-DD, got '") + bad + "'"),
              std::string::npos)
        << o.out;
  }
  // A leap day is a date; the spec's fitted_on is held to the same rule.
  Outcome o = cli("calibrate -q /nonexistent/spec.json --date 2028-02-29");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_EQ(o.out.find("--date"), std::string::npos) << o.out;
  o = cli("calibrate -q " + temp("nvmesim_cal_date.json", R"({"format": "nvmesim-calibrate/1", "fitted_on": "2026-13-01",
      "runs": [{"name": "r", "scenario": ")" + small_scenario(4) + R"(", "measured": {"iops": 5e4}}],
      "parameters": [{"path": "/host/irq_entry_ns", "min": 1, "max": 2}]})"));
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("/fitted_on: must be a calendar date YYYY-MM-DD"), std::string::npos) << o.out;
}

// Measurements written by the CLI itself (a results document and a fio JSON file) at a
// hidden service time; calibrate reads both kinds, recovers it inside the range the drive
// profile documents (the parameter's bounds when the spec gives none), and is deterministic.
TEST(CliCalibrate, FitsResultsAndFioJsonFilesDeterministically) {
  auto dir = std::filesystem::temp_directory_path() / "nvmesim_cli_calibrate";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (int qd : {2, 8}) {
    std::string fmt = qd == 2 ? "" : " --format fio-json";
    Outcome o = cli("run -q " + small_scenario(qd) + " --set /drives/0/profile/read/mean_ns=85000" + fmt + " -o " +
                    (dir / ("measured_qd" + std::to_string(qd) + ".json")).string());
    ASSERT_EQ(o.code, 0) << o.out;
  }
  std::string spec = temp("nvmesim_cal_spec.json", R"({"format": "nvmesim-calibrate/1", "name": "cli",
    "starts": 2, "max_evaluations": 30, "neighbourhood": 4, "fitted_on": "2026-01-02",
    "parameters": [{"path": "/drives/*/profile/read/mean_ns"}],
    "runs": [{"name": "qd2", "measured": ")" + (dir / "measured_qd2.json").string() + R"("},
             {"name": "qd8", "role": "holdout", "scenario": ")" + small_scenario(8) + R"(",
              "measured": ")" + (dir / "measured_qd8.json").string() + R"(", "metrics": ["iops"]}]})");
  for (const char* tag : {"a", "b"}) {
    Outcome o = cli("calibrate -q " + spec + " -o " + (dir / (std::string(tag) + "-profile.json")).string() +
                    " --report " + (dir / tag).string());
    ASSERT_EQ(o.code, 0) << o.out;
  }
  const auto profile = nlohmann::json::parse(read_text(dir / "a-profile.json"));
  EXPECT_NEAR(profile["read"]["mean_ns"].get<double>(), 85000, 85000 * 0.01);
  const std::string source = profile["sources"]["read.mean_ns"].get<std::string>();
  EXPECT_NE(source.find("fitted by nvmesim calibrate on 2026-01-02"), std::string::npos) << source;
  EXPECT_NE(source.find("qd2 [simulator results measured_qd2.json"), std::string::npos) << source;
  const auto report = nlohmann::json::parse(read_text(dir / "a" / "report.json"));
  // The simulator's fio JSON has lat_ns percentiles (its submit-to-reap latency): calibrate
  // reads those and says so.
  EXPECT_EQ(report["runs"][1]["source"], "fio JSON measured_qd8.json (latency from lat_ns)");
  EXPECT_EQ(report["runs"][1]["role"], "holdout");
  EXPECT_EQ(report["parameters"][0]["bounds"], nlohmann::json::array({60000, 100000}));
  EXPECT_NE(read_text(dir / "a" / "report.md").find("## Parameters"), std::string::npos);
  // Same spec and date: byte-identical outputs.
  EXPECT_EQ(read_text(dir / "a-profile.json"), read_text(dir / "b-profile.json"));
  EXPECT_EQ(read_text(dir / "a" / "report.json"), read_text(dir / "b" / "report.json"));
  EXPECT_EQ(read_text(dir / "a" / "report.md"), read_text(dir / "b" / "report.md"));
}

// A service time measured where the drive profile's documented range (60-100 us) does not
// reach, fitted within wider bounds: the report flags it (text and JSON) and
// --strict-ranges exits 1 after writing the outputs; without it calibrate exits 0.
TEST(CliCalibrate, StrictRangesFailsOnAFitOutsideThePhysicalRange) {
  auto dir = std::filesystem::temp_directory_path() / "nvmesim_cli_calibrate_ranges";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Outcome m = cli("run -q " + small_scenario(2, "_ranges") + " --set /drives/0/profile/read/mean_ns=130000 -o " +
                  (dir / "measured.json").string());
  ASSERT_EQ(m.code, 0) << m.out;
  std::string spec = temp("nvmesim_cal_ranges_spec.json", R"({"format": "nvmesim-calibrate/1", "name": "ranges",
    "starts": 1, "max_evaluations": 20, "neighbourhood": 0, "fitted_on": "2026-01-02",
    "parameters": [{"path": "/drives/*/profile/read/mean_ns", "min": 40000, "max": 200000}],
    "runs": [{"name": "qd2", "scenario": ")" + small_scenario(2, "_ranges") + R"(", "measured": ")" +
                                                                 (dir / "measured.json").string() + R"("}]})");
  Outcome lax = cli("calibrate -q " + spec + " --report " + (dir / "lax").string());
  EXPECT_EQ(lax.code, 0) << lax.out;
  Outcome strict = cli("calibrate -q --strict-ranges " + spec + " --report " + (dir / "strict").string());
  EXPECT_EQ(strict.code, 1) << strict.out;
  EXPECT_NE(strict.out.find("/drives/*/profile/read/mean_ns was fitted outside the physical range"), std::string::npos)
      << strict.out;
  const auto report = nlohmann::json::parse(read_text(dir / "strict" / "report.json"));
  EXPECT_EQ(report["outside_physical_range"], nlohmann::json::array({"/drives/*/profile/read/mean_ns"}));
  EXPECT_EQ(report["parameters"][0]["physical_range"], nlohmann::json::array({60000, 100000}));
  EXPECT_TRUE(report["parameters"][0]["outside_physical_range"].get<bool>());
  EXPECT_GT(report["parameters"][0]["value"].get<double>(), 100000);
  EXPECT_NE(read_text(dir / "strict" / "report.md").find("**Outside the physical range its profile documents:**"),
            std::string::npos);
  // The same report either way: the flag changes the exit status only.
  EXPECT_EQ(read_text(dir / "lax" / "report.json"), read_text(dir / "strict" / "report.json"));
}

// The judge's commands: the default scenario's command trace (from the run's start, with
// inflight rows for the commands still in flight at its end), replayed with the device
// times from the trace. Every command the trace saw comes back with the same submit,
// doorbell, posting and CQE-seen time (0 ns difference), the drift is 0, and the diff is
// written beside -o.
TEST(Cli, ReplayOfTheDefaultScenariosCommandTraceIsExact) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string t = (dir / "nvmesim_cli_replay_t.csv").string();
  const std::string out = (dir / "nvmesim_cli_replay.json").string();
  const std::string diff = (dir / "nvmesim_cli_replay.replay-diff.csv").string();
  std::filesystem::remove(diff);
  const std::string recorded = (dir / "nvmesim_cli_replay_recorded.json").string();
  Outcome rec = cli("run " + scenario() + " -q --command-trace " + t + " -o " + recorded);
  ASSERT_EQ(rec.code, 0) << rec.out;
  Outcome rep = cli("run " + scenario() + " --replay " + t + " --replay-service -o " + out);
  ASSERT_EQ(rep.code, 0) << rep.out;
  // The trace ends 10 ms into the measured window, which lasts 40 ms: said on stderr (and
  // in the results' replay.span.warning; -q prints nothing but errors).
  EXPECT_NE(rep.out.find("nvmesim: warning: the measured window"), std::string::npos) << rep.out;
  std::ifstream in(out);
  nlohmann::json r = nlohmann::json::parse(in)["replay"];
  // The replay's IOPS over the trace's span are the recorded run's IOPS (within 1%).
  std::ifstream rin(recorded);
  const double recorded_iops = nlohmann::json::parse(rin)["aggregate"]["iops"].get<double>();
  EXPECT_TRUE(r["span"]["window_extends_past_span"].get<bool>());
  EXPECT_NEAR(r["span"]["iops"].get<double>() / recorded_iops, 1.0, 0.01);
  EXPECT_EQ(r["span"]["iops"], r["span"]["recorded_iops"]);
  EXPECT_EQ(r["format"], "command-trace");
  EXPECT_EQ(r["service_source"], "doorbell_to_cqe_posted");
  EXPECT_GT(r["commands"].get<uint64_t>(), 50000u);
  EXPECT_GT(r["inflight"].get<uint64_t>(), 0u);
  EXPECT_EQ(r["matched"].get<uint64_t>() + r["inflight"].get<uint64_t>(), r["commands"].get<uint64_t>());
  EXPECT_EQ(r["identical"], r["matched"]);
  EXPECT_EQ(r["drift"].get<double>(), 0.0);
  std::ifstream trace(t);
  std::string line;
  std::getline(trace, line);
  EXPECT_TRUE(line.ends_with(",unit_done_ns")) << line;
  std::getline(trace, line);
  EXPECT_LT(std::stoll(line.substr(line.find(',') + 1)), 1'000'000) << "the default window starts at 0: " << line;
  ASSERT_TRUE(std::filesystem::exists(diff)) << "the diff goes beside -o by default";
  std::ifstream d(diff);
  std::getline(d, line);  // header
  std::size_t compared = 0;
  while (std::getline(d, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    ASSERT_GE(f.size(), 18u) << line;
    if (f[15].empty()) continue;  // an inflight row: no recorded CQE seen
    ++compared;
    for (std::size_t k : {8u, 11u, 14u, 17u}) ASSERT_EQ(f[k], "0") << line;
  }
  EXPECT_EQ(compared, r["matched"].get<uint64_t>());
}

// The same commands with the trace from the run's start (--trace-window 0:END, here a
// shortened run): every command seen more than 1 ms before the end (about twice the
// longest latency; the trace lacks the commands in flight at its end) comes back with
// the same submit, doorbell, posting and CQE-seen time to the nanosecond.
TEST(Cli, ReplayOfTheDefaultScenariosWholeRunTraceIsExact) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string t = (dir / "nvmesim_cli_replay_whole_t.csv").string();
  const std::string diff = (dir / "nvmesim_cli_replay_whole.csv").string();
  const std::string shorter = " --set duration_us=4000 --set warmup_us=3000";
  Outcome rec = cli("run " + scenario() + shorter + " -q --trace-window 0:7000 --command-trace " + t);
  ASSERT_EQ(rec.code, 0) << rec.out;
  Outcome rep = cli("run " + scenario() + shorter + " -q --replay " + t + " --replay-service --replay-diff " + diff);
  ASSERT_EQ(rep.code, 0) << rep.out;
  std::ifstream in(diff);
  std::string line;
  std::getline(in, line);
  ASSERT_EQ(line.rfind("line,drive,queue,cid,op,bytes,submit_rec,submit_sim,submit_diff,doorbell_rec,doorbell_sim,"
                       "doorbell_diff,cqe_posted_rec,cqe_posted_sim,cqe_posted_diff,cqe_seen_rec,",
                       0),
            0u)
      << line;
  std::size_t compared = 0, rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    ASSERT_GE(f.size(), 18u) << line;
    ++rows;
    if (f[15].empty() || std::stoll(f[15]) >= 6'000'000) continue;
    ++compared;
    for (std::size_t k : {8u, 11u, 14u, 17u}) ASSERT_EQ(f[k], "0") << line;
  }
  EXPECT_GT(compared, rows / 2);
}

TEST(Cli, BadReplayInputsExitTwoWithFileAndLine) {
  const std::string header =
      "kind,t_ns,queue,cid,op,lba,blocks,submit_ns,doorbell_ns,cqe_posted_ns,cqe_seen_ns,irq_ns,completed_by,status,"
      "cqes,mode_from,mode_to,reason\n";
  struct Case {
    std::string text, expect;
  };
  const Case cases[] = {
      {"", "nvmesim_cli_replay_bad.csv:1: empty file"},
      {"kind,t_ns,queue\n", "nvmesim_cli_replay_bad.csv:1: missing column 'cid'"},
      {header + "cmd,500,1,0,read,0,8,10,20,30,500,,irq,0,,,,\ncmd,400,1,1,read,0,8,10,20,30,400,,irq,0,,,,\n",
       "nvmesim_cli_replay_bad.csv:3: column t_ns: time goes backwards"},
      {header + "cmd,500,777,0,read,0,8,10,20,30,500,,irq,0,,,,\n", "nvmesim_cli_replay_bad.csv:2: column queue: queue 777 does not exist"},
      {header + "cmd,500,1,3,read,0,8,10,20,30,500,,irq,0,,,,\ncmd,600,1,3,read,0,8,100,120,130,600,,irq,0,,,,\n",
       "nvmesim_cli_replay_bad.csv:3: column cid: cid 3 reused while in flight"},
  };
  for (const Case& c : cases) {
    const std::string f = temp("nvmesim_cli_replay_bad.csv", c.text);
    Outcome o = cli("run " + scenario() + " -q --replay " + f);
    EXPECT_EQ(o.code, 2) << o.out;
    EXPECT_NE(o.out.find(c.expect), std::string::npos) << o.out;
  }
  Outcome o = cli("run " + scenario() + " -q --replay-service");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("--replay-service: needs --replay FILE"), std::string::npos) << o.out;
}

TEST(Cli, FioIologReplays) {
  const std::string f = temp("nvmesim_cli_replay.iolog",
                             "fio version 3 iolog\n0 /dev/nvme0n1 add\n0 /dev/nvme0n1 open\n"
                             "50 /dev/nvme0n1 read 0 4096\n60 /dev/nvme0n1 write 4096 4096\n90 /dev/nvme0n1 close\n");
  const std::string out = (std::filesystem::temp_directory_path() / "nvmesim_cli_iolog.json").string();
  // An empty write buffer on the written drive (the shipped profiles start full, and the
  // write would then wait for a program, longer than this run).
  Outcome o = cli("run " + scenario() + " -q --set duration_us=1000 --set warmup_us=0 --set "
                  "/drives/0/profile/initial_buffer_fill_min=0 --set /drives/0/profile/initial_buffer_fill_max=0 "
                  "--replay " + f + " -o " + out);
  ASSERT_EQ(o.code, 0) << o.out;
  std::ifstream in(out);
  nlohmann::json r = nlohmann::json::parse(in)["replay"];
  EXPECT_EQ(r["format"], "fio-iolog-v3");
  EXPECT_EQ(r["matched"], 2);
}

// `report` over a directory holding one published row (boundary QD64 libaio: its change
// differs from seed to seed), kept short. A directory per test: ctest runs tests side by side.
struct ReportDir {
  std::filesystem::path dir;
  explicit ReportDir(const std::string& tag)
      : dir(std::filesystem::temp_directory_path() / ("nvmesim_cli_report_" + tag)) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(std::string(NVMESIM_SCENARIOS) + "/published/a3_boundary_qd64_libaio.json",
                               dir / "a3_boundary_qd64_libaio.json");
  }
  Outcome report(const std::string& args) const {
    return cli("report " + dir.string() + " --set duration_us=3000 --set warmup_us=1000 " + args);
  }
};

// The cells of the table line that starts with `row` (the n-th such line).
std::vector<std::string> cells_of(const std::string& text, const std::string& row, int nth = 1) {
  std::size_t at = std::string::npos;
  for (int i = 0; i < nth; ++i) at = text.find("| " + row + " |", at == std::string::npos ? 0 : at + 1);
  if (at == std::string::npos) return {};
  std::string line = text.substr(at, text.find('\n', at) - at);
  std::vector<std::string> cells;
  std::stringstream ss(line.substr(1));
  for (std::string c; std::getline(ss, c, '|');) cells.push_back(c.substr(1, c.size() - 2));
  return cells;
}
double percent(const std::string& s) { return std::stod(s.substr(0, s.find('%'))); }

// A single measurement (published per_drive_iops, no policy change) runs once per seed as
// the scenario is, and goes to a table of its own: per drive, published and simulated.
TEST(Cli, ReportShowsSingleMeasurementsPerDriveInATableOfTheirOwn) {
  const ReportDir d("measurement");
  std::filesystem::copy_file(std::string(NVMESIM_SCENARIOS) + "/published/posted_msi_posted_4_drives.json",
                             d.dir / "posted_msi_posted_4_drives.json");
  const Outcome r = d.report("--seeds 2");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("Single measurements"), std::string::npos) << r.out;
  const auto row = cells_of(r.out, "posted_msi_posted_4_drives");
  ASSERT_EQ(row.size(), 6u) << r.out;
  EXPECT_EQ(row[1], "2.023M");
  EXPECT_NE(row[2].find(" .. "), std::string::npos) << "two seeds: a range";
  const double per_drive = std::stod(row[2]) * 1e6, total = std::stod(row[4]) * 1e6;
  EXPECT_NEAR(total, 4 * per_drive, 0.01e6);  // four drives
  EXPECT_GT(per_drive, 0.5e6);
  // The policy rows' table still has its own row, and the measurement none there.
  EXPECT_EQ(cells_of(r.out, "a3_boundary_qd64_libaio (watermark)").size(), 8u);
  EXPECT_TRUE(cells_of(r.out, "posted_msi_posted_4_drives (irq)").empty());
}

TEST(Cli, ReportRunsEachRowAtOneSeedByDefault) {
  const ReportDir d("one");
  const Outcome one = d.report("");
  ASSERT_EQ(one.code, 0) << one.out;
  EXPECT_EQ(d.report("--seeds 1").out, one.out);
  const auto row = cells_of(one.out, "a3_boundary_qd64_libaio (watermark)");
  ASSERT_EQ(row.size(), 8u) << one.out;
  EXPECT_EQ(row[5], "+28.61% to +59.75%");
  EXPECT_EQ(row[6].find('('), std::string::npos) << "one seed: no range";
  EXPECT_EQ(one.out.find("first seed"), std::string::npos) << "one seed: no per-seed table";
}

// Several seeds: every seed's paired change, their median and range in the row, and the
// seeds are the scenario's (here set to 7) and the ones after it -- the same runs as a
// report at each seed on its own.
TEST(Cli, ReportOverSeedsGivesTheMedianTheRangeAndEverySeed) {
  const ReportDir d("three");
  const Outcome three = d.report("--seeds 3 --set seed=7");
  ASSERT_EQ(three.code, 0) << three.out;
  EXPECT_NE(three.out.find("Each row runs at seeds S .. S+2"), std::string::npos) << three.out;
  const auto seeds = cells_of(three.out, "a3_boundary_qd64_libaio (watermark)", 2);
  ASSERT_EQ(seeds.size(), 3u) << three.out;
  EXPECT_EQ(seeds[1], "7");
  std::vector<double> changes;
  std::stringstream ss(seeds[2]);
  for (std::string c; std::getline(ss, c, ',');) changes.push_back(percent(c.substr(c.find_first_not_of(' '))));
  ASSERT_EQ(changes.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    const Outcome alone = d.report("--set seed=" + std::to_string(7 + k));
    const auto row = cells_of(alone.out, "a3_boundary_qd64_libaio (watermark)");
    ASSERT_EQ(row.size(), 8u) << alone.out;
    EXPECT_DOUBLE_EQ(percent(row[6]), changes[k]) << "seed " << 7 + k;
  }
  std::vector<double> sorted = changes;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_LT(sorted.front(), sorted.back()) << "the seeds should differ on this row";
  const auto row = cells_of(three.out, "a3_boundary_qd64_libaio (watermark)");
  ASSERT_EQ(row.size(), 8u) << three.out;
  char want[96];
  std::snprintf(want, sizeof want, "%+.2f%% (%+.2f%% .. %+.2f%%)", sorted[1], sorted[0], sorted[2]);
  EXPECT_EQ(row[6], want);
  EXPECT_EQ(d.report("--seeds 3 --set seed=7").out, three.out) << "deterministic";
}

TEST(Cli, ReportSeedsOutsideOneToAHundredAreRefused) {
  for (const char* bad : {"0", "-1", "101", "x", "2.5"}) {
    Outcome o = cli(std::string("report --seeds ") + bad);
    EXPECT_EQ(o.code, 2) << bad;
    EXPECT_NE(o.out.find(std::string("--seeds: must be an integer from 1 to 100, got '") + bad + "'"),
              std::string::npos)
        << o.out;
  }
}

TEST(Cli, AnUnknownCommandIsNamedWithTheCommands) {
  // Was "A subcommand is required", naming neither the word nor the commands.
  Outcome o = cli("bogus");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("nvmesim: unknown command 'bogus' (commands: run, validate,"), std::string::npos) << o.out;
  o = cli("valdate " + scenario());
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("unknown command 'valdate'"), std::string::npos) << o.out;
}

TEST(Cli, AFioHipriThatIsNeitherOnNorOffIsRefusedAtItsLine) {
  // hipri=true or hipri=2 was read as off without a word.
  for (const char* v : {"true", "2"}) {
    Outcome o = cli("validate " + temp("nvmesim_cli_hipri.fio", std::string("[j]\nfilename=/dev/nvme0n1\nhipri=") + v + "\n"));
    EXPECT_EQ(o.code, 2) << o.out;
    EXPECT_NE(o.out.find("nvmesim_cli_hipri.fio:3: option 'hipri': must be given alone, 1 (on) or 0 (off), got '" +
                         std::string(v) + "'"),
              std::string::npos)
        << o.out;
  }
  Outcome o = cli("validate " + temp("nvmesim_cli_hipri.fio", "[j]\nfilename=/dev/nvme0n1\nhipri=0\n"));
  EXPECT_EQ(o.code, 0) << o.out;
}

// A value a fio line gave that the loader refuses is named at that line, in the loader's
// words (was the generated JSON path: "/jobs/0/iodepth: must be >= 1, got 0").
TEST(Cli, FioValuesTheLoaderRefusesAreNamedAtTheirLine) {
  struct Case {
    std::string body, expect;  // the job section's lines after filename=; the message after "FILE:"
  };
  for (const Case& c : {
           Case{"iodepth=0", "3: option 'iodepth': must be >= 1, got 0"},
           Case{"numjobs=0", "3: option 'numjobs': must be >= 1, got 0"},
           Case{"numjobs=5000", "3: option 'numjobs': must be <= 4096, got 5000"},
           Case{"bs=100", "3: option 'bs': must be >= 512 bytes, got 100"},
           Case{"blocksize=1000", "3: option 'blocksize': must be a multiple of 512, got 1000"},
           Case{"rwmixread=101", "3: option 'rwmixread': must be a percentage, got '101'"},  // the reader's own
           Case{"rw=sideways", "3: option 'rw': must be one of randread,"},
           Case{"readwrite=sideways", "3: option 'readwrite': must be one of randread,"},
           Case{"iodepth=4\niodepth_batch=8", "4: option 'iodepth_batch': must be <= iodepth (4), got 8"},
           Case{"rate_iops=2000000000", "3: option 'rate_iops': must be <= "},
           Case{"cpus_allowed=999", "3: option 'cpus_allowed': CPU 999 does not exist"},
           Case{"hipri", "3: option 'hipri': hipri needs polled queues"},
           // The later of two lines is the value loaded, and the line named.
           Case{"iodepth=0\niodepth=4\nbs=4k\nblocksize=100", "6: option 'blocksize': must be >= 512 bytes, got 100"},
       }) {
    std::string f = temp("nvmesim_cli_fio_line.fio", "[j]\nfilename=/dev/nvme0n1\n" + c.body + "\n");
    Outcome o = cli("validate " + f);
    EXPECT_EQ(o.code, 2) << c.body << "\n" << o.out;
    EXPECT_NE(o.out.find("nvmesim: " + f + ":" + c.expect), std::string::npos) << c.body << "\n" << o.out;
  }
  // A drive the testbed lacks, at the filename line; a [global] line, at its line.
  std::string f = temp("nvmesim_cli_fio_line.fio", "[global]\nnumjobs=0\n[j]\nfilename=/dev/nvme0n1:/dev/nvme9n1\n");
  Outcome o = cli("validate " + f);
  EXPECT_NE(o.out.find("nvmesim: " + f + ":2: option 'numjobs': must be >= 1, got 0"), std::string::npos) << o.out;
  o = cli("validate " + temp("nvmesim_cli_fio_line.fio", "[j]\nrw=randread\nfilename=/dev/nvme0n1:/dev/nvme9n1\n"));
  EXPECT_NE(o.out.find("nvmesim_cli_fio_line.fio:3: option 'filename': no such drive: 9"), std::string::npos) << o.out;
  // A job file a scenario names: under /fio, as its conversion errors are.
  f = temp("nvmesim_cli_fio_line.fio", "[j]\nfilename=/dev/nvme0n1\niodepth=0\n");
  o = cli("validate " + scenario() + " --set fio=" + f);
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("nvmesim: /fio: " + f + ":3: option 'iodepth': must be >= 1, got 0"), std::string::npos) << o.out;
}

// An override replaces the file's value: then the JSON path it set is the place to name.
TEST(Cli, AFioValueAnOverrideReplacedIsNamedAtItsJsonPath) {
  std::string f = temp("nvmesim_cli_fio_set.fio", "[j]\nfilename=/dev/nvme0n1\niodepth=4\nnumjobs=0\n");
  for (const char* set : {"jobs.0.iodepth=0", "/jobs/0/iodepth=0", "jobs.00.iodepth=0", "'jobs.0={\"iodepth\":0}'"}) {
    Outcome o = cli("validate " + f + " --set jobs.0.numjobs=1 --set " + set);
    EXPECT_EQ(o.code, 2) << set << "\n" << o.out;
    EXPECT_NE(o.out.find("nvmesim: /jobs/0/iodepth: must be >= 1, got 0"), std::string::npos) << set << "\n" << o.out;
  }
  // The same value set again is still the override's.
  f = temp("nvmesim_cli_fio_set.fio", "[j]\nfilename=/dev/nvme0n1\niodepth=0\n");
  Outcome o = cli("validate " + f + " --set jobs.0.iodepth=0");
  EXPECT_NE(o.out.find("nvmesim: /jobs/0/iodepth: must be >= 1, got 0"), std::string::npos) << o.out;
  // An override of another field leaves the file's line the place to name.
  o = cli("validate " + f + " --set jobs.0.numjobs=2");
  EXPECT_NE(o.out.find("nvmesim: " + f + ":3: option 'iodepth': must be >= 1, got 0"), std::string::npos) << o.out;
  // A scenario's own jobs replaced by --set fio=: the file's lines are named.
  o = cli("validate " + scenario() + " --set jobs.0.iodepth=4 --set fio=" + f);
  EXPECT_NE(o.out.find("nvmesim: /fio: " + f + ":3: option 'iodepth': must be >= 1, got 0"), std::string::npos) << o.out;
}

// A drive given twice in a filename line is named at that line in the file's words (was
// "FILE:2: option 'filename': drive nvme0 is listed twice (also at /jobs/0/drives/0)").
TEST(Cli, AFioDriveGivenTwiceIsNamedAtItsLine) {
  std::string f = temp("nvmesim_cli_fio_twice.fio", "[j]\nfilename=/dev/nvme0n1:/dev/nvme0n1\n");
  const std::string expect = f + ":2: option 'filename': /dev/nvme0n1 is given twice: a job submits to each of its drives once\n";
  Outcome o = cli("validate " + f);
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_EQ(o.out, "nvmesim: " + expect);
  o = cli("validate " + scenario() + " --set fio=" + f);
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_EQ(o.out, "nvmesim: /fio: " + expect);
}

// The warning for a job deeper than its queue names the fio line of its iodepth (a
// [global] one too), as errors do; it named /jobs/0/iodepth, a path the file never wrote.
TEST(Cli, AFioIodepthDeeperThanTheQueueIsWarnedAtItsLine) {
  const std::string words =
      "4000 is more than a queue of drive nvme0 holds (1023 commands: queue_depth 1024, the drive's max_queue_depth "
      "4096, less one): the job keeps at most 1023 in flight there, 2977 fewer";
  std::string f = temp("nvmesim_cli_fio_deep.fio", "[global]\niodepth=4000\n[j]\nfilename=/dev/nvme0n1\n");
  Outcome o = cli("validate " + f);
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("  warning: " + f + ":2: option 'iodepth': " + words + "\n"), std::string::npos) << o.out;
  o = cli("validate " + scenario() + " --set fio=" + f);
  EXPECT_NE(o.out.find("  warning: /fio: " + f + ":2: option 'iodepth': " + words + "\n"), std::string::npos) << o.out;
  // An override's value is named at its JSON path.
  o = cli("validate " + f + " --set jobs.0.iodepth=4000");
  EXPECT_NE(o.out.find("  warning: /jobs/0/iodepth: " + words + "\n"), std::string::npos) << o.out;
}

// fio's rule: a section whose name starts with "global" is global ([global_x] was a job).
TEST(Cli, AFioSectionNamedGlobalSomethingIsGlobal) {
  std::string f = temp("nvmesim_cli_fio_global.fio", "[global_x]\niodepth=8\n[j]\nfilename=/dev/nvme0n1\n");
  Outcome o = cli("validate " + f);
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find(f + ": valid (4 drive(s), 1 job section(s), policy irq)"), std::string::npos) << o.out;
}

TEST(Cli, AReportOverADirectoryWithoutPublishedScenariosSaysSo) {
  // Was an empty table and exit 0.
  auto dir = std::filesystem::temp_directory_path() / "nvmesim_cli_report_empty";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "x.json") << "{\"name\": \"not published\"}";
  Outcome o = cli("report " + dir.string());
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("no scenario file with a \"published\" block (1 JSON file(s)"), std::string::npos) << o.out;
}

}  // namespace
