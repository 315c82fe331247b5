// Issue 10 item 7: blk-mq's completion on the submitting CPU. One queue on a four-core
// host takes its interrupts on core 0; jobs on core 1 (same cache as core 0) and core 2
// (another cache when two cores share one) submit to it. Requests of the job on core 2
// are sent there by IPI and finished in core 2's BLOCK_SOFTIRQ; the others are finished
// where they were reaped. Off (one cache for all cores), no IPI.
#include <gtest/gtest.h>

#include "models/system/system.h"
#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

using nlohmann::json;

json two_jobs_one_queue() {
  json doc = testing::ideal_scenario();
  doc["io_queues"] = 1;
  doc["jobs"] = json::array({{{"name", "near"}, {"iodepth", 4}, {"cpus_allowed", "1"}},
                             {{"name", "far"}, {"iodepth", 4}, {"cpus_allowed", "2"}}});
  doc["duration_us"] = 5000;
  doc["warmup_us"] = 1000;
  return doc;
}

struct Ipis {
  uint64_t to_core1 = 0, to_core2 = 0;
  Duration softirq_core2;
  uint64_t ios = 0;
};

Ipis run(const json& doc) {
  LoadedScenario loaded = testing::load_or_fail(doc);
  System sys(loaded.scenario);
  sys.run();
  Ipis out;
  out.to_core1 = sys.softirq(1).completion_ipis;
  out.to_core2 = sys.softirq(2).completion_ipis;
  out.softirq_core2 = sys.core_times(2).busy[index(Context::softirq)];
  for (const Job& j : sys.jobs())
    for (uint64_t n : j.ios) out.ios += n;
  return out;
}

TEST(CompletionIpi, OnlyTheSubmitterInAnotherCacheGetsItsCompletionsByIpi) {
  json doc = two_jobs_one_queue();
  doc["host"]["completion_ipi"] = {{"cores_per_llc", 2}, {"send_ns", 100}, {"latency_ns", 500}, {"remote_per_cqe_ns", 200}};
  const Ipis on = run(doc);
  EXPECT_GT(on.ios, 0u);
  EXPECT_EQ(on.to_core1, 0u);
  EXPECT_GT(on.to_core2, 0u);
  EXPECT_GT(on.softirq_core2, Duration::zero());  // the IPI's BLOCK_SOFTIRQ runs there
}

TEST(CompletionIpi, OffWhenEveryCoreSharesOneCache) {
  json doc = two_jobs_one_queue();
  const Ipis off = run(doc);
  EXPECT_EQ(off.to_core2, 0u);
  EXPECT_EQ(off.softirq_core2, Duration::zero());
  doc["host"]["completion_ipi"] = {{"cores_per_llc", 4}, {"send_ns", 100}, {"latency_ns", 500}, {"remote_per_cqe_ns", 200}};
  const Ipis one_cache = run(doc);
  EXPECT_EQ(one_cache.to_core2, 0u);
  EXPECT_EQ(one_cache.ios, off.ios);  // nothing else changed
}

}  // namespace
}  // namespace nvmesim
