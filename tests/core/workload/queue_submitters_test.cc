// Each queue knows who submits to it (JobModel::mark_submitters): the one job, if only
// one does, and whether every submitter runs on the queue's interrupt core. A drain uses
// them to skip looking up each completion's job and core, so they must say exactly what
// the jobs' targets say.
#include <gtest/gtest.h>

#include "models/system/system.h"
#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

using nlohmann::json;

struct Submitters {
  uint32_t sole_job;
  bool on_core;
};

std::vector<Submitters> submitters(const json& doc) {
  LoadedScenario loaded = testing::load_or_fail(doc);
  System sys(loaded.scenario);
  std::vector<Submitters> out;
  for (const auto& q : sys.queues()) out.push_back({q->sole_job, q->submitters_on_core});
  return out;
}

TEST(QueueSubmitters, AQueuePerCoreHasItsCoresJobAlone) {
  json doc = testing::ideal_scenario();  // four cores, a queue per core, one job on core 0
  doc["jobs"] = json::array({{{"name", "a"}, {"iodepth", 2}, {"cpus_allowed", "0"}},
                             {{"name", "b"}, {"iodepth", 2}, {"cpus_allowed", "2"}}});
  const auto s = submitters(doc);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].sole_job, 0u);
  EXPECT_TRUE(s[0].on_core);
  EXPECT_EQ(s[2].sole_job, 1u);
  EXPECT_TRUE(s[2].on_core);
  EXPECT_EQ(s[1].sole_job, HostQueue::kNoSoleJob);  // nobody submits there
}

TEST(QueueSubmitters, ASharedQueueHasNoSoleJobAndAJobElsewhereIsNotOnItsCore) {
  json doc = testing::ideal_scenario();
  doc["io_queues"] = 1;  // one queue, its interrupt on core 0
  doc["jobs"] = json::array({{{"name", "far"}, {"iodepth", 2}, {"cpus_allowed", "1"}}});
  auto s = submitters(doc);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].sole_job, 0u);
  EXPECT_FALSE(s[0].on_core);

  doc["jobs"] = json::array({{{"name", "near"}, {"iodepth", 2}, {"cpus_allowed", "0"}},
                             {{"name", "far"}, {"iodepth", 2}, {"cpus_allowed", "2"}}});
  s = submitters(doc);
  EXPECT_EQ(s[0].sole_job, HostQueue::kNoSoleJob);
  EXPECT_FALSE(s[0].on_core);

  doc["jobs"][1]["cpus_allowed"] = "0";  // both on the queue's core
  s = submitters(doc);
  EXPECT_EQ(s[0].sole_job, HostQueue::kNoSoleJob);
  EXPECT_TRUE(s[0].on_core);
}

}  // namespace
}  // namespace nvmesim
