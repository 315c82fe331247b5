// The CLI edge as a user meets it: exit codes and messages naming the JSON path.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#ifndef NVMESIM_CLI
#error "NVMESIM_CLI must name the nvmesim binary"
#endif

namespace {

struct Outcome {
  int code;
  std::string out;  // stdout and stderr together
};

Outcome cli(const std::string& args) {
  std::string cmd = std::string(NVMESIM_CLI) + " " + args + " 2>&1";
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
        BadInput{"--set jobs.0.cpus_allowed=0-99", "/jobs/0/cpus_allowed: CPU 32 does not exist"},
        BadInput{"--set jobs.0.iodeth=4", "/jobs/0/iodeth: unknown key"},
        BadInput{"--set jobs.0.iodepth_batch_submit=2000", "/jobs/0/iodepth_batch_submit: must be <= iodepth"},
        BadInput{"--set jobs.0.drives=[9]", "/jobs/0/drives/0: no such drive"},
        BadInput{"--set drives.2.profile.units=0", "/drives/2/profile/units: must be >= 1, got 0"},
        BadInput{"--set drives.0.profile.read.dist=gamma", "/drives/0/profile/read/dist: must be one of"},
        BadInput{"--set drives.0.profile.read.mean_ns=-1", "/drives/0/profile/read/mean_ns: must be >= 1"},
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
        BadInput{"--set policy.name=poll --set jobs.0.ioengine=libaio", "/jobs/0/ioengine: policy \"poll\" polls queues"},
        BadInput{"--set duration_us=0", "/duration_us: must be >= 1, got 0"},
        BadInput{"--set jobs=[]", "/jobs: must be a non-empty array"},
        BadInput{"--set jobs.7.iodepth=1", "/jobs/7: index out of range"},
        BadInput{"--set noequals", "override must be path=value"},
        BadInput{"--seed abc", "--seed: must be a non-negative integer"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return "case" + std::to_string(info.index); });

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

TEST(Cli, SchemaIsJsonAndUsageErrorsExitTwo) {
  Outcome o = cli("schema");
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("\"$schema\""), std::string::npos);
  EXPECT_EQ(cli("").code, 2);
  EXPECT_EQ(cli("frobnicate").code, 2);
  EXPECT_EQ(cli("run " + scenario() + " --bogus").code, 2);
}

}  // namespace
