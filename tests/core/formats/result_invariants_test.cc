// The results' invariants (app/results/result_invariants.h): each law catches a record that breaks
// it, and every shipped scenario under every policy keeps them all.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "app/results/result_invariants.h"
#include "policies/registry.h"
#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

using results::RunRecord;

// A small record that keeps every law: one drive, two queues (one job each), two cores,
// 1 ms window.
struct Fixture {
  Scenario sc;
  RunRecord r;

  Fixture() {
    sc.queue_depth = 64;
    sc.warmup = Duration::zero();
    sc.duration = Duration::ms(1);
    sc.drives.resize(1);
    sc.drives[0].profile.iops_max = 1e6;  // 1000 in the window
    r.window = Duration::ms(1);
    for (uint32_t q = 0; q < 2; ++q) {
      results::Figures f;
      f.ios = 100;
      f.bytes = 100 * 4096;
      for (int i = 0; i < 100; ++i) f.latency.record(10'000 + 1000 * i);
      f.irq.useful = 50;
      f.irq.spurious = 2;
      results::QueueRecord qr;
      qr.figures = f;
      qr.queue = q;
      r.queues.push_back(qr);
      results::JobRecord jr;
      jr.figures = f;
      jr.queues = {q};
      r.jobs.push_back(jr);
      add(r.aggregate, f);
    }
    results::DriveRecord d;
    d.figures = r.aggregate;
    d.commands = 200;
    results::DeviceModelFigures m;
    m.iops_ceiling_utilization = 0.2;
    m.unit_utilization = 0.5;
    m.link_utilization = 0.1;
    d.model = m;
    r.drives.push_back(d);
    r.cores.push_back({0, 100'000, 50'000, 0, 300'000});
    r.cores.push_back({1, 0, 0, 0, 1'000'000});
    r.limits = results::Limits{1.0, 0.5, std::nullopt, std::nullopt};
  }
  static void add(results::Figures& to, const results::Figures& f) {
    to.ios += f.ios;
    to.bytes += f.bytes;
    to.latency.merge(f.latency);
    to.irq.useful += f.irq.useful;
    to.irq.spurious += f.irq.spurious;
    to.irq.masked_lazily += f.irq.masked_lazily;
  }
  std::vector<std::string> broken() const { return results::invariant_violations(r, sc); }
};

// The violation list names `where` (a JSON path of the results).
::testing::AssertionResult names(const std::vector<std::string>& broken, const std::string& where) {
  for (const std::string& b : broken)
    if (b.rfind(where, 0) == 0) return ::testing::AssertionSuccess();
  std::string all;
  for (const std::string& b : broken) all += "\n  " + b;
  return ::testing::AssertionFailure() << "nothing names " << where << ":" << (all.empty() ? " (none)" : all);
}

TEST(ResultInvariants, AConsistentRecordKeepsThemAll) {
  const Fixture f;
  EXPECT_TRUE(f.broken().empty()) << f.broken().front();
}

TEST(ResultInvariants, SharesOfTheWindowLieInZeroToOne) {
  Fixture f;
  f.r.drives[0].model->unit_utilization = 3.08;  // the 64 MiB block case of issue 29
  f.r.drives[0].model->link_utilization = -1.7e9;
  f.r.limits->busiest_remapping_unit_utilization = 1.29;
  EXPECT_TRUE(names(f.broken(), "drives[0].device.unit_utilization"));
  EXPECT_TRUE(names(f.broken(), "drives[0].device.link_utilization"));
  EXPECT_TRUE(names(f.broken(), "limits.busiest_remapping_unit_utilization"));
}

TEST(ResultInvariants, CountsAddUpAcrossLevels) {
  Fixture f;
  f.r.jobs[1].figures.ios += 1;
  f.r.jobs[1].figures.latency.record(5000);
  EXPECT_TRUE(names(f.broken(), "aggregate.ios"));
  Fixture g;
  g.r.queues[0].figures.irq.spurious += 1;
  EXPECT_TRUE(names(g.broken(), "aggregate.interrupts"));
  EXPECT_TRUE(names(g.broken(), "jobs[0].interrupts"));
}

TEST(ResultInvariants, AHistogramHoldsItsLevelsIos) {
  Fixture f;
  f.r.aggregate.ios += 1;
  EXPECT_TRUE(names(f.broken(), "aggregate.latency_ns"));
}

TEST(ResultInvariants, ACoreIsBusyAtMostTheWindow) {
  Fixture f;
  f.r.cores[1].app_ns = 1'000'001;
  EXPECT_TRUE(names(f.broken(), "cores[1].time_ns"));
  Fixture g;
  g.r.cores[0].softirq_ns = -1;
  EXPECT_TRUE(names(g.broken(), "cores[0].time_ns"));
}

// Completions in the window: at most the fetches its ceiling allows there plus what its
// queues held; reaps differ from them by at most what the queues hold.
TEST(ResultInvariants, ADriveCompletesWithinItsCeilingAndItsQueues) {
  Fixture f;
  f.r.drives[0].commands = 1000 + 1 + 2 * 64 + 1;
  EXPECT_TRUE(names(f.broken(), "drives[0].device.commands"));
  EXPECT_TRUE(names(f.broken(), "drives[0]: reaped"));
}

TEST(ResultInvariants, ModeSharesSumToOneAndTimelinesRunForward) {
  Fixture f;
  f.r.queues[0].mode_share = {{"irq", 0.7}, {"poll", 0.4}};
  f.r.queues[1].timeline = {{500, "irq", "poll", "x"}, {400, "poll", "irq", "y"}};
  EXPECT_TRUE(names(f.broken(), "queues[0].mode_share"));
  EXPECT_TRUE(names(f.broken(), "queues[1].mode_timeline[1]"));
}

TEST(ResultInvariants, APositiveWindow) {
  Fixture f;
  f.r.window = Duration::zero();
  EXPECT_TRUE(names(f.broken(), "window_ns"));
}

// Completions the jobs did not reap in a window too short for their batches: 0 I/Os is
// what the jobs saw, and the results say why.
TEST(ResultInvariants, AWindowWithCompletionsButNoReapsSaysSo) {
  // A 1 us window on the default scenario: its drives post CQEs in it, but no job reaps
  // before it closes (at seed 1; checked, so that a model change that breaks it says so).
  const nlohmann::json r = run_scenario(testing::load_default({"duration_us=1", "warmup_us=1000"}), testing::checked());
  ASSERT_EQ(r["aggregate"]["ios"], 0);
  std::string all;
  for (const auto& w : r["warnings"]) all += w.get<std::string>() + "\n";
  EXPECT_NE(all.find("no I/O was reaped in the measured window, though the drives completed"), std::string::npos) << all;
}

// A record that breaks a law fails the run (an internal error), rather than being written.
TEST(ResultInvariants, RunScenarioChecksWhenAsked) {
  LoadedScenario ls = testing::load_default({"duration_us=1000", "warmup_us=200"});
  RunOptions o;
  o.check_invariants = true;
  EXPECT_NO_THROW(run_scenario(ls, o));
}

// Every shipped scenario under every policy keeps every law (short runs: the checks hold
// at any length). The drive-cost cases that once broke them are here too: 64 MiB blocks
// (a service longer than the window), a 1 MB/s link, no warm-up.
TEST(ResultInvariants, EveryShippedScenarioUnderEveryPolicy) {
  std::vector<std::string> files = {default_scenarios_dir() + "/default.json"};
  for (const auto& e : std::filesystem::directory_iterator(default_scenarios_dir() + "/published"))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 20u);
  std::size_t ran = 0;
  for (const std::string& file : files) {
    for (const policy::PolicyInfo& p : policy::kPolicies) {
      SCOPED_TRACE(file + " under " + std::string(p.name));
      LoadOptions lo;
      lo.overrides = {"policy.name=" + std::string(p.name), "duration_us=600", "warmup_us=200",
                      "warmup_covers_policy=false"};
      auto loaded = load_scenario_file(file, lo);
      if (std::holds_alternative<InputError>(loaded)) continue;  // refused (polling needs io_uring)
      ++ran;
      RunOptions o = testing::checked();
      o.threads = 1;
      EXPECT_NO_THROW(run_scenario(std::get<LoadedScenario>(loaded), o));
    }
  }
  EXPECT_GT(ran, 5 * files.size());
  for (const char* set : {"jobs.0.bs=64m", "drives.0.profile.link_bytes_per_s=1000000", "warmup_us=0"}) {
    SCOPED_TRACE(set);
    EXPECT_NO_THROW(run_scenario(testing::load_default({set, "duration_us=2000", "warmup_us=0"}), testing::checked()));
  }
}

}  // namespace
}  // namespace nvmesim
