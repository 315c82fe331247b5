// Queue mapping as the kernel spreads cores over queues, and the Perfetto trace.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "tests/core/sim_helpers.h"
#include "vocab/command_trace.h"

namespace nvmesim {
namespace {

TEST(QueueMapping, CoresAreSpreadEvenlyOverFewerQueues) {
  // 16 cores, 4 I/O queues per drive: queue q serves cores 4q..4q+3, its vector on 4q.
  auto r = testing::default_short({"io_queues=4", "host.cores=16",
                                   "jobs=[{\"iodepth\":8,\"numjobs\":16,\"cpus_allowed\":\"0-15\",\"drives\":[0]}]"});
  ASSERT_EQ(r["jobs"].size(), 16u);
  for (const auto& j : r["jobs"]) {
    int core = j["core"].get<int>();
    int q = j["queues"][0].get<int>();
    EXPECT_EQ(q, core / 4) << "core " << core;
  }
  for (const auto& q : r["queues"]) {
    if (q["drive"] != 0) continue;
    EXPECT_EQ(q["core"].get<int>(), 4 * (q["qid"].get<int>() - 1));
  }
}

TEST(QueueMapping, OneQueuePerCoreCappedByTheDrive) {
  // 128 cores over the drive's 2 queues: cores 0-63 share queue 0, cores 64-127 queue 1.
  auto r = testing::default_short({"drives.0.profile.max_io_queues=2",
                                   "jobs=[{\"iodepth\":8,\"numjobs\":4,\"cpus_allowed\":\"0,32,64,96\",\"drives\":[0]}]"});
  std::vector<int> used;
  for (const auto& j : r["jobs"]) used.push_back(j["queues"][0].get<int>());
  EXPECT_EQ(used, (std::vector<int>{0, 0, 1, 1}));
  int drive0_queues = 0;
  for (const auto& q : r["queues"]) drive0_queues += q["drive"] == 0;
  EXPECT_EQ(drive0_queues, 2);
}

TEST(Trace, PerfettoTraceHasCoreAndQueueTracksWithinItsWindow) {
  auto path = std::filesystem::temp_directory_path() / "nvmesim_trace_test.json";
  LoadOptions o;
  o.overrides = {"duration_us=3000", "warmup_us=1000", "policy.name=watermark"};
  auto l = load_scenario_file(default_scenarios_dir() + "/default.json", o);
  ASSERT_TRUE(std::holds_alternative<LoadedScenario>(l));
  RunOptions ro;
  ro.trace_path = path.string();
  ro.trace_from_us = 1500;
  ro.trace_to_us = 2000;
  RunInfo info;
  run_scenario(std::get<LoadedScenario>(l), ro, &info);
  std::ifstream in(path);
  auto t = nlohmann::json::parse(in);
  ASSERT_TRUE(t.contains("traceEvents"));
  std::set<std::string> cats, names;
  double min_ts = 1e18, max_end = 0;
  int counters = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M" && (e["name"] == "process_name" || e["name"] == "thread_name"))
      names.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X") {
      cats.insert(e["cat"].get<std::string>());
      min_ts = std::min(min_ts, e["ts"].get<double>());
      max_end = std::max(max_end, e["ts"].get<double>() + e["dur"].get<double>());
    }
    if (e["ph"] == "C") ++counters;
  }
  EXPECT_TRUE(names.count("cores"));
  EXPECT_TRUE(names.count("cpu0"));
  EXPECT_TRUE(names.count("nvme0q1 (cpu0)"));
  for (const char* c : {"app", "irq_thread", "mode"}) EXPECT_TRUE(cats.count(c)) << c;
  EXPECT_GT(counters, 0);
  EXPECT_GE(min_ts, 1500.0);
  EXPECT_LE(max_end, 2000.0 + 1e-6);
  EXPECT_EQ(info.trace_dropped, 0u);
}

}  // namespace
}  // namespace nvmesim

namespace nvmesim {
namespace {

TEST(Trace, CommandTraceIsTheHwFormatInTimeOrderAndConsistent) {
  auto path = std::filesystem::temp_directory_path() / "nvmesim_command_trace_test.csv";
  LoadOptions o;
  o.overrides = {"duration_us=3000", "warmup_us=1000", "jobs=[{\"iodepth\":64,\"cpus_allowed\":\"0\",\"drives\":[0]}]"};
  auto l = load_scenario_file(default_scenarios_dir() + "/default.json", o);
  ASSERT_TRUE(std::holds_alternative<LoadedScenario>(l));
  RunOptions ro;
  ro.command_trace_path = path.string();
  auto res = run_scenario(std::get<LoadedScenario>(l), ro);
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, trace::CommandTraceWriter::kHeader);
  int64_t last_t = 0;
  int cmds = 0, irqs = 0, posted_inflight = 0;
  // By (queue, irq_ns): the CQEs each logged handler run consumed, and the cmd rows it
  // consumed in the window.
  std::map<std::pair<std::string, int64_t>, int> run_cqes, run_cmds;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string x;
    while (std::getline(ss, x, ',')) f.push_back(x);
    while (f.size() < 18) f.emplace_back();
    int64_t t = std::stoll(f[1]);
    EXPECT_GE(t, last_t);
    last_t = t;
    if (f[0] == "cmd") {
      ++cmds;
      int64_t submit = std::stoll(f[7]), doorbell = std::stoll(f[8]), posted = std::stoll(f[9]),
              seen = std::stoll(f[10]);
      EXPECT_LE(submit, doorbell);
      EXPECT_LT(doorbell, posted);
      EXPECT_LE(posted, seen);
      EXPECT_EQ(f[12], "irq");
      ASSERT_FALSE(f[11].empty());
      ++run_cmds[{f[2], std::stoll(f[11])}];
    } else if (f[0] == "irq") {
      ++irqs;
      run_cqes[{f[2], std::stoll(f[11])}] += std::stoi(f[14]);
    } else if (f[0] == "inflight" && !f[9].empty()) {
      ++posted_inflight;
    }
  }
  EXPECT_GT(cmds, 100);
  EXPECT_GT(irqs, 10);
  // Every CQE consumed in the window was consumed by a logged handler run, and every run
  // consumed as many as it logged; except that the last run on a queue may still be
  // reaping when the window closes (a row's cqes counts its whole run): the CQEs it
  // reaps after the end are inflight rows with their CQE posted, not cmd rows.
  for (const auto& [run, n] : run_cmds) EXPECT_TRUE(run_cqes.count(run)) << "no irq row at " << run.second;
  for (auto it = run_cqes.begin(); it != run_cqes.end(); ++it) {
    const auto seen = run_cmds.count(it->first) ? run_cmds.at(it->first) : 0;
    const bool last_on_queue = std::next(it) == run_cqes.end() || std::next(it)->first.first != it->first.first;
    if (!last_on_queue) {
      EXPECT_EQ(seen, it->second) << "handler run at " << it->first.second;
    } else {
      EXPECT_LE(seen, it->second) << "handler run at " << it->first.second;
      EXPECT_LE(it->second - seen, posted_inflight) << "handler run at " << it->first.second;
    }
  }
}

}  // namespace
}  // namespace nvmesim
