// The topology on its own: where job clones, queues and vectors go, and which queues a
// policy runs on -- no events, no models.
#include "models/topology.h"

#include <gtest/gtest.h>

#include <vector>

namespace nvmesim {
namespace {

const policy::PolicyInfo& info(const char* name) { return *policy::find_policy(name); }

JobSpec job(uint32_t numjobs, std::vector<uint32_t> cpus, std::vector<uint32_t> drives) {
  JobSpec j;
  j.numjobs = numjobs;
  j.cpus_allowed = std::move(cpus);
  j.drives = std::move(drives);
  return j;
}

TEST(Topology, CoresAreSpreadEvenlyOverQueuesAndEachVectorGoesToItsFirstCore) {
  std::vector<DriveShape> drives{{2, {2, false}}};
  Topology t(4, drives, {}, info("irq"));
  ASSERT_EQ(t.queue_count(), 2u);
  // Core c uses queue c * 2 / 4: cores 0,1 -> q0; cores 2,3 -> q1.
  EXPECT_EQ(t.core_queue(0, 0), 0u);
  EXPECT_EQ(t.core_queue(0, 1), 0u);
  EXPECT_EQ(t.core_queue(0, 2), 1u);
  EXPECT_EQ(t.core_queue(0, 3), 1u);
  EXPECT_EQ(t.queue(0).core, 0u);
  EXPECT_EQ(t.queue(1).core, 2u);
}

TEST(Topology, QueuesBeyondTheCoresAreSpreadByQid) {
  std::vector<DriveShape> drives{{5, {5, false}}};
  Topology t(2, drives, {}, info("irq"));
  // Cores 0 and 1 use q0 and q2 (c * 5 / 2); the unused queues get qid % cores.
  EXPECT_EQ(t.core_queue(0, 0), 0u);
  EXPECT_EQ(t.core_queue(0, 1), 2u);
  std::vector<uint32_t> cores;
  for (uint32_t q = 0; q < 5; ++q) cores.push_back(t.queue(q).core);
  EXPECT_EQ(cores, (std::vector<uint32_t>{0, 1, 1, 1, 0}));
}

TEST(Topology, QueuesAreNumberedDriveByDrive) {
  std::vector<DriveShape> drives{{2, {2, false}}, {3, {3, false}}};
  Topology t(3, drives, {}, info("irq"));
  EXPECT_EQ(t.queue_count(), 5u);
  EXPECT_EQ(t.drive_queues(1), (std::vector<uint32_t>{2, 3, 4}));
  EXPECT_EQ(t.queue(3).drive, 1u);
  EXPECT_EQ(t.queue(3).qid, 1u);
  EXPECT_EQ(t.monitor_core(1), t.queue(2).core);
}

TEST(Topology, ClonesArePinnedToCpusAllowedOrElseToTheNextCores) {
  std::vector<DriveShape> drives{{4, {4, false}}, {4, {4, false}}};
  std::vector<JobSpec> jobs{job(3, {}, {0}), job(3, {3, 1}, {0, 1}), job(2, {}, {1})};
  Topology t(4, drives, jobs, info("irq"));
  ASSERT_EQ(t.jobs().size(), 8u);
  std::vector<uint32_t> cores;
  for (const auto& j : t.jobs()) cores.push_back(j.core);
  // In order 0,1,2; then cpus_allowed split 3,1,3; then the next cores go on: 3, 0.
  EXPECT_EQ(cores, (std::vector<uint32_t>{0, 1, 2, 3, 1, 3, 3, 0}));
  const auto& two_drives = t.jobs()[4];
  EXPECT_EQ(two_drives.spec, 1u);
  EXPECT_EQ(two_drives.clone, 1u);
  EXPECT_EQ(two_drives.queues, (std::vector<uint32_t>{t.core_queue(0, 1), t.core_queue(1, 1)}));
}

TEST(Topology, APolicyNeedingADedicatedVectorFallsBackToIrqOnASharedOne) {
  for (const char* p : {"watermark", "rate"}) {
    EXPECT_EQ(queue_policy(info(p), {2, false}).name, p);
    EXPECT_EQ(queue_policy(info(p), {1, false}).name, "irq") << p;
    EXPECT_EQ(queue_policy(info(p), {8, true}).name, "irq") << p << " with threaded interrupts";
  }
  for (const char* p : {"irq", "threaded", "poll", "coalesce", "coalesce_adaptive"})
    EXPECT_EQ(queue_policy(info(p), {1, true}).name, p);
}

TEST(Topology, EveryQueueOfADriveRunsTheSamePolicy) {
  std::vector<DriveShape> drives{{1, {1, false}}, {4, {4, false}}};
  Topology t(4, drives, {}, info("watermark"));
  EXPECT_EQ(t.queue(0).policy->name, "irq");  // the one-queue drive: its vector is shared
  for (uint32_t gq : t.drive_queues(1)) EXPECT_EQ(t.queue(gq).policy->name, "watermark");
}

TEST(Topology, TheSimulatorGivesEachDriveOneQueuePerCoreCappedByTheDrive) {
  Scenario sc;
  sc.host.cores = 8;
  sc.drives.resize(2);
  sc.drives[1].profile.max_io_queues = 3;
  auto shapes = Topology::simulated_drives(sc);
  EXPECT_EQ(shapes[0].io_queues, 8u);
  EXPECT_EQ(shapes[1].io_queues, 3u);
  EXPECT_EQ(shapes[1].vectors.msix_vectors, 3u);
  sc.io_queues = 1;
  EXPECT_EQ(Topology::simulated_drives(sc)[0].vectors.msix_vectors, 1u);
}

}  // namespace
}  // namespace nvmesim
