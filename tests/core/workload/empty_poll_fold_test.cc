// Folding an application's empty polling passes into one segment (issue 13): the count of
// passes that are certain to find nothing, and runs that give the same figures with the
// folding on and off, with fewer events where a job polls alone on its core.
#include "models/workload/empty_poll_fold.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

Time at(int64_t ns) { return Time::from_ns(ns); }

TEST(FoldableEmptyPasses, EndStrictlyBeforeWhatIsNotScheduledYet) {
  // Passes begin at 100, 110, ...; a posting not scheduled yet may come at 150: the folded
  // segment must end before it, so the passes of 100..130 fold (ending at 140).
  EXPECT_EQ(foldable_empty_passes(at(100), Duration::ns(10), Time::never(), at(150)), 4u);
  EXPECT_EQ(foldable_empty_passes(at(100), Duration::ns(10), Time::never(), at(151)), 5u);
  EXPECT_EQ(foldable_empty_passes(at(100), Duration::ns(10), Time::never(), at(110)), 0u);
  EXPECT_EQ(foldable_empty_passes(at(100), Duration::ns(10), Time::never(), at(111)), 1u);
}

TEST(FoldableEmptyPasses, FoldEveryPassThatBeginsBeforeWhatIsScheduled) {
  // A scheduled posting at 130 is seen by the pass that begins at 130: 100, 110 and 120
  // fold and the segment ends at 130, where the next pass finds it.
  EXPECT_EQ(foldable_empty_passes(at(100), Duration::ns(10), at(130), Time::never()), 3u);
  EXPECT_EQ(foldable_empty_passes(at(100), Duration::ns(10), at(131), Time::never()), 4u);
  EXPECT_EQ(foldable_empty_passes(at(100), Duration::ns(10), at(101), Time::never()), 1u);
  EXPECT_EQ(foldable_empty_passes(at(100), Duration::ns(10), at(100), Time::never()), 0u);
  // The tighter of the two bounds decides.
  EXPECT_EQ(foldable_empty_passes(at(100), Duration::ns(10), at(131), at(125)), 2u);
}

TEST(FoldableEmptyPasses, NothingWithoutAPositivePassCostOrRoom) {
  EXPECT_EQ(foldable_empty_passes(at(100), Duration::zero(), Time::never(), Time::never()), 0u);
  EXPECT_EQ(foldable_empty_passes(at(100), Duration::ns(10), at(90), Time::never()), 0u);
  EXPECT_EQ(foldable_empty_passes(at(100), Duration::ns(10), Time::never(), at(90)), 0u);
}

struct Both {
  nlohmann::json folded, unfolded;
  uint64_t events_folded = 0, events_unfolded = 0;
};

// The shipped default scenario under the poll policy, shortened, with `overrides`: run
// with and without folding.
Both run_both(std::vector<std::string> overrides) {
  overrides.insert(overrides.begin(), {"policy.name=poll", "duration_us=3000", "warmup_us=1000"});
  LoadedScenario ls = testing::load_default(overrides);
  Both b;
  if (::testing::Test::HasFailure()) return b;
  RunOptions on, off;
  off.fold_empty_polls = false;
  RunInfo i_on, i_off;
  b.folded = run_scenario(ls, on, &i_on);
  b.unfolded = run_scenario(ls, off, &i_off);
  b.events_folded = i_on.events;
  b.events_unfolded = i_off.events;
  return b;
}

// Folding keeps what every pass sees; only the order of events due at the same nanosecond
// may differ (models/workload/empty_poll_fold.h), which moves a run as a different tie-break would:
// the figures agree to well within their run-to-run noise (here they are usually
// identical). I/Os and empty passes to 0.2%, latency percentiles to 1%.
void expect_same_figures(const nlohmann::json& a, const nlohmann::json& b, const std::string& what) {
  auto near = [&](double x, double y, double rel, const std::string& name) {
    EXPECT_LE(std::abs(x - y), rel * std::max(std::abs(x), 1.0)) << what << ": " << name << " " << x << " vs " << y;
  };
  near(a["aggregate"]["ios"].get<double>(), b["aggregate"]["ios"].get<double>(), 0.002, "ios");
  for (const char* p : {"mean", "p50", "p99"})
    near(a["aggregate"]["latency_ns"][p].get<double>(), b["aggregate"]["latency_ns"][p].get<double>(), 0.01, p);
  ASSERT_EQ(a["queues"].size(), b["queues"].size());
  for (std::size_t q = 0; q < a["queues"].size(); ++q) {
    const auto& ca = a["queues"][q]["counters"];
    const auto& cb = b["queues"][q]["counters"];
    near(ca["poll_empty"].get<double>(), cb["poll_empty"].get<double>(), 0.002, "poll_empty of queue " + std::to_string(q));
    near(ca["poll_useful"].get<double>(), cb["poll_useful"].get<double>(), 0.002, "poll_useful of queue " + std::to_string(q));
  }
}

TEST(EmptyPollFolding, JobsPollingAloneOnTheirCoresGiveTheSameFiguresWithFewerEvents) {
  Both b = run_both({});
  expect_same_figures(b.folded, b.unfolded, "default");
  // Most of the polled default's events are empty passes (about 5 per I/O).
  EXPECT_LT(b.events_folded * 10, b.events_unfolded * 7) << b.events_folded << " vs " << b.events_unfolded;
}

TEST(EmptyPollFolding, TheSameFiguresWithNoWarmUpAndOtherSeeds) {
  for (const char* seed : {"seed=2", "seed=3"}) {
    Both b = run_both({seed, "warmup_us=0"});
    expect_same_figures(b.folded, b.unfolded, seed);
    EXPECT_LT(b.events_folded, b.events_unfolded) << seed;
  }
}

TEST(EmptyPollFolding, JobsThatShareACoreOrAQueueDoNotFold) {
  // Two clones per core: a pass may hand the core to the other clone. Nothing folds, so
  // the runs are the same event for event.
  Both shared_core = run_both({"jobs.0.numjobs=8", "jobs.1.numjobs=8", "jobs.2.numjobs=8", "jobs.3.numjobs=8"});
  EXPECT_EQ(dump_results(shared_core.folded), dump_results(shared_core.unfolded));
  EXPECT_EQ(shared_core.events_folded, shared_core.events_unfolded);
  // Two I/O queues per drive for 16 cores: each queue is polled by several clones.
  Both shared_queue = run_both({"io_queues=2"});
  EXPECT_EQ(dump_results(shared_queue.folded), dump_results(shared_queue.unfolded));
  EXPECT_EQ(shared_queue.events_folded, shared_queue.events_unfolded);
}

TEST(EmptyPollFolding, OpenLoopAndShallowJobsGiveTheSameFigures) {
  // rate_iops: arrivals during a fold do not matter while the job has no room; QD8 with
  // single completions: the job reaps after each CQE.
  // Without the MSI-X path's line, which would couple two drives' tie-breaks: the claim
  // is about folding alone.
  Both b = run_both({"jobs.0.rate_iops=300000", "jobs.1.rate_iops=900000", "jobs.1.rate_process=poisson",
                     "jobs.2.iodepth=8", "jobs.2.iodepth_batch_submit=1", "jobs.2.iodepth_batch_complete_min=1",
                     "host.platform.interrupt_remapping=off"});
  expect_same_figures(b.folded, b.unfolded, "open loop and QD8");
  EXPECT_LT(b.events_folded, b.events_unfolded);
}

TEST(EmptyPollFolding, FoldedRunsAreTheSameForAnyThreadCountAndWithATrace) {
  // A fold depends only on its own partition's state: partitions run apart or together,
  // and a traced run (one System), give one results file.
  LoadedScenario ls = testing::load_default({"policy.name=poll", "duration_us=3000", "warmup_us=1000"});
  RunOptions one, two, traced;
  one.threads = 1;
  two.threads = 2;
  std::ostringstream trace;
  traced.trace_out = &trace;
  const std::string a = dump_results(run_scenario(ls, one));
  EXPECT_EQ(a, dump_results(run_scenario(ls, two)));
  nlohmann::json t = run_scenario(ls, traced);
  t.erase("warnings");  // the traced run says it ran as one System
  nlohmann::json plain = nlohmann::json::parse(a);
  plain.erase("warnings");
  EXPECT_EQ(plain, t);
  EXPECT_FALSE(trace.str().empty());
}

}  // namespace
}  // namespace nvmesim
