// The topology on its own: where job clones, queues and vectors go, and which queues a
// policy runs on -- no events, no models.
#include "models/host/topology.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/core/job_specs.h"

namespace nvmesim {
namespace {

const policy::PolicyInfo& info(const char* name) { return *policy::find_policy(name); }

using testing::job;

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

// Issue 10 item 7: two drives with one queue each on four cores: every core shares
// each drive's one queue. Taking the first CPU of the mask puts both drives' interrupts
// on core 0; x86's managed-interrupt matrix puts each vector on the mask's CPU with the
// fewest vectors so far, so the second drive's goes to core 1.
TEST(Topology, TheFewestVectorsRuleSpreadsDrivesThatShareAMaskOverItsCores) {
  std::vector<DriveShape> drives{{1, {2, false}}, {1, {2, false}}, {2, {3, false}}};
  Topology first(4, drives, {}, info("irq"));
  EXPECT_EQ(first.queue(0).core, 0u);
  EXPECT_EQ(first.queue(1).core, 0u);
  EXPECT_EQ(first.queue(2).core, 0u);  // drive 2's q0: mask {0, 1}
  EXPECT_EQ(first.queue(3).core, 2u);  // drive 2's q1: mask {2, 3}
  Topology spread(4, drives, {}, info("irq"), IrqEffectiveCpu::fewest_vectors);
  EXPECT_EQ(spread.queue(0).core, 0u);
  EXPECT_EQ(spread.queue(1).core, 1u);
  EXPECT_EQ(spread.queue(2).core, 0u);  // mask {0, 1}: one vector each, the lower CPU
  EXPECT_EQ(spread.queue(3).core, 2u);  // mask {2, 3}: none yet
}

// Issue 10 item 10: eligibility as nvme-pci decides it. With the drive's MSI-X table
// given, one I/O queue gets vectors for itself and the admin queue (num_vecs = 2 > 1): a
// dedicated vector, so policy A runs; a one-vector table shares it: plain interrupts.
TEST(Topology, WithTheMsixTableGivenEligibilityFollowsNumVecs) {
  Scenario sc;
  sc.host.cores = 8;
  sc.io_queues = 1;
  sc.drives.resize(3);
  sc.drives[1].profile.msix_table_size = 64;
  sc.drives[2].profile.msix_table_size = 1;
  auto shapes = Topology::simulated_drives(sc);
  EXPECT_EQ(shapes[0].vectors.msix_vectors, 1u);  // the simplified shape: shared
  EXPECT_EQ(shapes[1].vectors.msix_vectors, 2u);
  EXPECT_EQ(shapes[1].io_queues, 1u);
  EXPECT_EQ(shapes[2].vectors.msix_vectors, 1u);
  EXPECT_EQ(queue_policy(info("watermark"), shapes[0].vectors).name, "irq");
  EXPECT_EQ(queue_policy(info("watermark"), shapes[1].vectors).name, "watermark");
  EXPECT_EQ(queue_policy(info("watermark"), shapes[2].vectors).name, "irq");
  // A table smaller than the queues asked for: one vector for the admin queue, the rest
  // one per I/O queue.
  sc.io_queues = 8;
  sc.drives[1].profile.msix_table_size = 5;
  EXPECT_EQ(Topology::simulated_drives(sc)[1].io_queues, 4u);
}

}  // namespace
}  // namespace nvmesim
