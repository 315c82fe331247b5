// Partition-parallel runs: which parts of a machine are independent (the mapping on its
// own), and that running them apart, on any number of threads, gives the results of
// the whole machine run as one.
#include "models/system/partition.h"

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <vector>

#include "app/run/parallel_runs.h"
#include "app/scenario/memory_estimate.h"
#include "tests/core/job_specs.h"
#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

const policy::PolicyInfo& irq() { return *policy::find_policy("irq"); }

using testing::job;

// Each drive has one queue per core (queue c's vector on core c), as the simulator builds.
std::vector<DriveShape> drives(uint32_t n, uint32_t cores) { return std::vector<DriveShape>(n, {cores, {cores, false}}); }

using Ids = std::vector<uint32_t>;

TEST(Partitioning, TheDefaultTestbedIsOnePartitionPerDriveWithItsJobsAndCores) {
  // Four drives, four clones each pinned to four cores of their own (scenarios/default.json).
  std::vector<JobSpec> jobs{job(4, {0, 1, 2, 3}, {0}), job(4, {4, 5, 6, 7}, {1}), job(4, {8, 9, 10, 11}, {2}),
                            job(4, {12, 13, 14, 15}, {3})};
  Topology t(16, drives(4, 16), jobs, irq());
  Partitioning p(t, false);
  ASSERT_EQ(p.size(), 4u);
  for (uint32_t d = 0; d < 4; ++d) {
    const Partition& part = p.parts()[d];
    EXPECT_EQ(part.drives, Ids{d});
    EXPECT_EQ(part.cores, (Ids{4 * d, 4 * d + 1, 4 * d + 2, 4 * d + 3}));
    EXPECT_EQ(part.jobs, (Ids{4 * d, 4 * d + 1, 4 * d + 2, 4 * d + 3}));
  }
  // Every drive has queues whose vectors point at the other drives' cores, but nobody
  // submits to them, so they tie nothing together.
  EXPECT_EQ(p.core_part(5), 1u);
  EXPECT_EQ(p.drive_part(3), 3u);
  EXPECT_EQ(p.job_part(9), 2u);
}

TEST(Partitioning, JobsOnOneDriveAreOnePartition) {
  std::vector<JobSpec> jobs{job(1, {0}, {0}), job(1, {1}, {1}), job(1, {2}, {1})};
  Topology t(4, drives(2, 4), jobs, irq());
  Partitioning p(t, false);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.parts()[0].drives, Ids{0});
  EXPECT_EQ(p.parts()[0].cores, (Ids{0, 3}));  // core 3: used by nothing, with the first
  EXPECT_EQ(p.parts()[1].drives, Ids{1});
  EXPECT_EQ(p.parts()[1].jobs, (Ids{1, 2}));
  EXPECT_EQ(p.parts()[1].cores, (Ids{1, 2}));
}

TEST(Partitioning, JobsOnOneCoreAreOnePartition) {
  std::vector<JobSpec> jobs{job(1, {1}, {0}), job(1, {1}, {1}), job(1, {2}, {2})};
  Topology t(3, drives(3, 3), jobs, irq());
  Partitioning p(t, false);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.parts()[0].drives, (Ids{0, 1}));
  EXPECT_EQ(p.parts()[0].jobs, (Ids{0, 1}));
  EXPECT_EQ(p.parts()[0].cores, (Ids{0, 1}));
  EXPECT_EQ(p.parts()[1].drives, Ids{2});
}

TEST(Partitioning, AJobOnTwoDrivesJoinsThem) {
  std::vector<JobSpec> jobs{job(1, {0}, {0, 1}), job(1, {1}, {2})};
  Topology t(2, drives(3, 2), jobs, irq());
  Partitioning p(t, false);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.parts()[0].drives, (Ids{0, 1}));
  EXPECT_EQ(p.parts()[1].drives, Ids{2});
}

TEST(Partitioning, AVectorOnAnotherCoreJoinsThatCore) {
  // One queue per drive: every core submits to it and its vector goes to core 0, so the
  // job on core 1 shares core 0's interrupts with the job of drive 0.
  std::vector<JobSpec> jobs{job(1, {0}, {0}), job(1, {1}, {1})};
  Topology t(2, std::vector<DriveShape>(2, {1, {1, false}}), jobs, irq());
  Partitioning p(t, false);
  EXPECT_EQ(p.size(), 1u);
}

TEST(Partitioning, TheDrivesOfOneSocketAreOnePartition) {
  std::vector<JobSpec> jobs{job(1, {0}, {0}), job(1, {1}, {1}), job(1, {2}, {2}), job(1, {3}, {3})};
  Topology t(4, drives(4, 4), jobs, irq());
  EXPECT_EQ(Partitioning(t, false).size(), 4u);  // nothing couples the drives
  const std::vector<uint32_t> own{0, 1, 2, 3}, pairs{0, 0, 1, 1}, alternate{0, 1, 0, 1}, one{0, 0, 0, 0};
  EXPECT_EQ(Partitioning(t, false, own).size(), 4u);  // a socket per drive
  Partitioning p(t, false, pairs);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.parts()[0].drives, (Ids{0, 1}));
  EXPECT_EQ(p.parts()[1].drives, (Ids{2, 3}));
  EXPECT_EQ(p.parts()[1].cores, (Ids{2, 3}));
  Partitioning q(t, false, alternate);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q.parts()[0].drives, (Ids{0, 2}));
  EXPECT_EQ(Partitioning(t, false, one).size(), 1u);
}

TEST(Partitioning, ADriveMonitorJoinsItsCore) {
  // A drive policy's monitor runs on the core of the drive's first queue: core 0 for both.
  std::vector<JobSpec> jobs{job(1, {0}, {0}), job(1, {1}, {1})};
  Topology t(2, drives(2, 2), jobs, irq());
  EXPECT_EQ(Partitioning(t, false).size(), 2u);
  EXPECT_EQ(Partitioning(t, true).size(), 1u);
}

TEST(Partitioning, OfAScenarioSeesThePlatformAndTheDrivePolicy) {
  LoadedScenario ls = testing::load_default({});  // four drives over two sockets
  const Scenario& sc = ls.scenario;
  EXPECT_EQ(Partitioning::of(sc, Topology::of(sc)).size(), 2u);
  LoadedScenario apart = testing::load_default({"host.platform.sockets=4"});
  EXPECT_EQ(Partitioning::of(apart.scenario, Topology::of(apart.scenario)).size(), 4u);
  LoadedScenario no_platform = testing::load_default({"host.platform.interrupt_remapping=off"});
  EXPECT_EQ(Partitioning::of(no_platform.scenario, Topology::of(no_platform.scenario)).size(), 4u);
  LoadedScenario adaptive = testing::load_default({"policy.name=coalesce_adaptive"});
  EXPECT_EQ(Partitioning::of(adaptive.scenario, Topology::of(adaptive.scenario)).size(), 1u);
  LoadedScenario one_socket = testing::load_default({"host.platform.sockets=1"});
  EXPECT_EQ(Partitioning::of(one_socket.scenario, Topology::of(one_socket.scenario)).size(), 1u);
}

// ---- runs -----------------------------------------------------------------------------

std::string run_with(const LoadedScenario& ls, unsigned threads, RunInfo* info = nullptr) {
  RunOptions o;
  o.threads = threads;
  return dump_results(run_scenario(ls, o, info));
}

// The default scenario with a socket per drive: four partitions, each with its platform.
LoadedScenario default_short(std::vector<std::string> overrides = {}) {
  overrides.insert(overrides.begin(), {"duration_us=3000", "warmup_us=2000", "host.platform.sockets=4"});
  return testing::load_default(std::move(overrides));
}

TEST(PartitionedRun, ResultsAreByteIdenticalForAnyNumberOfThreads) {
  const LoadedScenario ls = default_short();
  RunInfo info;
  const std::string one = run_with(ls, 1, &info);
  EXPECT_EQ(info.partitions, 4u);
  EXPECT_EQ(info.threads, 1u);
  ASSERT_GT(info.ios, 0u);
  for (unsigned n : {2u, 4u, 7u}) {
    EXPECT_EQ(run_with(ls, n, &info), one) << n << " threads";
    EXPECT_EQ(info.threads, std::min(n, 4u));
  }
}

// Each partition's System holds the whole machine's state: a memory limit that fits one
// System (the loader's check) but not two runs the partitions one at a time, same results.
TEST(PartitionedRun, NoMoreSystemsAtOnceThanTheMemoryLimitHolds) {
  const LoadedScenario ls = default_short();
  const uint64_t one_system = estimate_memory(ls.scenario, {}).total();
  RunOptions o;
  o.threads = 4;
  o.memory_limit = one_system + one_system / 2;
  RunInfo info;
  const std::string tight = dump_results(run_scenario(ls, o, &info));
  EXPECT_EQ(info.partitions, 4u);
  EXPECT_EQ(info.threads, 1u);
  o.memory_limit = 2 * one_system;
  EXPECT_EQ(dump_results(run_scenario(ls, o, &info)), tight);
  EXPECT_EQ(info.threads, 2u);
  EXPECT_EQ(run_with(ls, 4), tight);
}

// The whole machine as one System (a trace forces it) measures what the partitions do.
void expect_same_as_whole_machine(const LoadedScenario& ls) {
  RunOptions two;
  two.threads = 2;
  nlohmann::json parted = run_scenario(ls, two);
  std::ostringstream trace;
  RunOptions whole;
  whole.trace_out = &trace;
  whole.trace_max_events = 1;
  nlohmann::json one = run_scenario(ls, whole);
  ASSERT_TRUE(one.contains("warnings"));
  EXPECT_NE(one["warnings"].back().get<std::string>().find("simulated as one System, not as its 4 independent partitions on their own threads: --trace record"),
            std::string::npos);
  one["warnings"].erase(one["warnings"].size() - 1);
  if (one["warnings"].empty()) one.erase("warnings");
  EXPECT_EQ(dump_results(parted), dump_results(one));
}

TEST(PartitionedRun, TheMergedResultsAreThoseOfTheWholeMachine) { expect_same_as_whole_machine(default_short()); }

TEST(PartitionedRun, TheMergedResultsAreThoseOfTheWholeMachineForEveryPerQueuePolicy) {
  for (const char* p : {"threaded", "poll", "coalesce", "watermark", "rate"}) {
    SCOPED_TRACE(p);
    expect_same_as_whole_machine(default_short({std::string("policy.name=") + p}));
  }
}

// Parts that finish before the calling thread's first report (here: at once, never
// reporting) still end the caller's progress at 1.0.
TEST(PartitionedRun, TheCallersProgressEndsAtOneHoweverShortTheParts) {
  for (unsigned threads : {1u, 2u}) {
    SCOPED_TRACE(threads);
    std::vector<double> seen;
    std::atomic<int> ran{0};
    run_parallel(4, threads, [&](std::size_t, const ProgressFn&) { ++ran; }, [&](double f) { seen.push_back(f); });
    EXPECT_EQ(ran.load(), 4);
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.back(), 1.0);
    for (double f : seen) EXPECT_TRUE(f >= 0.0 && f <= 1.0) << f;
  }
}

TEST(PartitionedRun, AProgressCallbackThatThrowsStopsTheRun) {
  const LoadedScenario ls = default_short();
  RunOptions o;
  o.threads = 2;
  o.progress = [](double) { throw std::runtime_error("stop"); };
  EXPECT_THROW(run_scenario(ls, o), std::runtime_error);
}

}  // namespace
}  // namespace nvmesim
