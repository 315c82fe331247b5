// Controller bring-up, admin commands, timeouts and fatal status against the fake.
#include "hw/nvme/controller.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hw/tests/fakes/fake_controller.h"

namespace nvmesim::hw {
namespace {

using testing::FakeClock;
using testing::FakeController;
using testing::FakeDma;
using testing::FakeVectors;

struct Rig {
  FakeDma dma;
  FakeVectors vectors;
  FakeController dev{dma, &vectors};
  FakeClock clock;
};

size_t index_of(const FakeController& d, uint32_t off, size_t from = 0) {
  for (size_t i = from; i < d.writes.size(); ++i)
    if (d.writes[i].first == off) return i;
  return SIZE_MAX;
}

TEST(NvmeController, InitProgramsAdminQueueBeforeEnabling) {
  Rig r;
  nvme::Controller c(r.dev, r.dma, r.clock);
  c.enable();
  size_t aqa = index_of(r.dev, nvme::reg::kAqa);
  size_t asq = index_of(r.dev, nvme::reg::kAsq);
  size_t acq = index_of(r.dev, nvme::reg::kAcq);
  size_t en = index_of(r.dev, nvme::reg::kCc);
  ASSERT_NE(en, SIZE_MAX);
  EXPECT_LT(aqa, en);
  EXPECT_LT(asq, en);
  EXPECT_LT(acq, en);
  uint32_t cc = uint32_t(r.dev.writes[en].second);
  EXPECT_TRUE(cc & nvme::cc::kEnable);
  EXPECT_EQ((cc >> 16) & 0xf, 6u) << "IOSQES: 64-byte SQEs";
  EXPECT_EQ((cc >> 20) & 0xf, 4u) << "IOCQES: 16-byte CQEs";
  EXPECT_EQ((cc >> 7) & 0xf, 0u) << "MPS: 4 KiB";
  uint32_t aqa_v = uint32_t(r.dev.writes[aqa].second);
  EXPECT_EQ(aqa_v & 0xfff, 31u);  // 32 entries, 0's based
  EXPECT_EQ(aqa_v >> 16, 31u);
}

TEST(NvmeController, ReEnableDisablesFirst) {
  Rig r;
  nvme::Controller c(r.dev, r.dma, r.clock);
  c.enable();
  r.dev.writes.clear();
  c.enable();
  size_t first_cc = index_of(r.dev, nvme::reg::kCc);
  ASSERT_NE(first_cc, SIZE_MAX);
  EXPECT_FALSE(r.dev.writes[first_cc].second & nvme::cc::kEnable) << "CC.EN=0 comes first";
}

TEST(NvmeController, ReadyTimeoutFollowsCapTo) {
  Rig r;
  r.dev.faults.never_ready = true;
  nvme::Controller c(r.dev, r.dma, r.clock);
  EXPECT_EQ(c.ready_timeout(), Duration::ms(1000));  // CAP.TO = 2 x 500 ms
  EXPECT_THROW(c.enable(), nvme::CommandTimeout);
  EXPECT_GE(r.clock.now(), Time::zero() + Duration::ms(1000));
  EXPECT_LT(r.clock.now(), Time::zero() + Duration::ms(1100));
}

TEST(NvmeController, IdentifyParsesControllerAndNamespace) {
  Rig r;
  nvme::Controller c(r.dev, r.dma, r.clock);
  c.enable();
  nvme::ControllerInfo id = c.identify_controller();
  EXPECT_EQ(id.vid, 0x1234);
  EXPECT_EQ(id.serial, "FAKE0001");
  EXPECT_EQ(id.model, "Fake NVMe Controller");
  EXPECT_EQ(id.nn, 1u);
  EXPECT_EQ(id.max_transfer_bytes(), 128u * 1024);
  nvme::NamespaceInfo ns = c.identify_namespace(1);
  EXPECT_EQ(ns.size_blocks, 1u << 20);
  EXPECT_EQ(ns.block_bytes, 512u);
}

TEST(NvmeController, QueueCountIsWhatTheControllerGrants) {
  Rig r;
  nvme::Controller c(r.dev, r.dma, r.clock);
  c.enable();
  EXPECT_EQ(c.set_queue_count(4), 4u);
  EXPECT_EQ(c.set_queue_count(64), 8u);  // the fake offers 8
}

TEST(NvmeController, RefusedCoalescingIsToleratedNotThrown) {
  Rig r;
  nvme::Controller c(r.dev, r.dma, r.clock);
  c.enable();
  nvme::AdminResult res = c.set_feature(nvme::feature::kInterruptCoalescing, (1 << 8) | 7);
  EXPECT_FALSE(res.ok());
  EXPECT_EQ(res.status, nvme::status::kFeatureNotChangeable);
  EXPECT_NE(nvme::describe_status(res.status).find("Feature Not Changeable"), std::string::npos);
  // The admin queue still works afterwards.
  EXPECT_NO_THROW(c.identify_controller());
}

TEST(NvmeController, AdminCommandTimesOutAndPoisonsTheAdminQueue) {
  Rig r;
  r.dev.faults.drop_opcode = nvme::admin::kIdentify;
  nvme::ControllerConfig cfg;
  cfg.admin_timeout = Duration::s(2);
  nvme::Controller c(r.dev, r.dma, r.clock, cfg);
  c.enable();
  Time before = r.clock.now();
  try {
    c.identify_controller();
    FAIL() << "no timeout";
  } catch (const nvme::CommandTimeout& e) {
    EXPECT_NE(std::string(e.what()).find("Identify Controller"), std::string::npos);
  }
  EXPECT_GE(r.clock.now() - before, Duration::s(2));
  // After a timeout the admin queue state is unknown: refuse rather than guess.
  EXPECT_THROW(c.get_feature(nvme::feature::kNumberOfQueues), nvme::NvmeError);
  // A reset makes it usable again.
  r.dev.faults.drop_opcode = -1;
  c.enable();
  EXPECT_NO_THROW(c.identify_controller());
}

TEST(NvmeController, FatalStatusDuringCommandStopsWithClearMessage) {
  Rig r;
  r.dev.faults.fatal_on_opcode = nvme::admin::kCreateCq;
  nvme::Controller c(r.dev, r.dma, r.clock);
  c.enable();
  try {
    c.create_io_queue(1, 16, true, 1);
    FAIL() << "no ControllerFatal";
  } catch (const nvme::ControllerFatal& e) {
    EXPECT_NE(std::string(e.what()).find("CSTS.CFS"), std::string::npos);
  }
  // Fatal, not a timeout: found well before the admin timeout ran out.
  EXPECT_LT(r.clock.now(), Time::zero() + Duration::s(1));
  // Teardown after CFS: disabling still works (and does not throw).
  EXPECT_NO_THROW(c.disable());
}

TEST(NvmeController, FatalStatusBeforeACommandIsReported) {
  Rig r;
  nvme::Controller c(r.dev, r.dma, r.clock);
  c.enable();
  r.dev.set_fatal();
  EXPECT_THROW(c.check_fatal(), nvme::ControllerFatal);
  EXPECT_THROW(c.identify_controller(), nvme::ControllerFatal);
}

TEST(NvmeController, ShutdownWaitsForShstThenDisables) {
  Rig r;
  nvme::Controller c(r.dev, r.dma, r.clock);
  c.enable();
  EXPECT_TRUE(c.shutdown());
  size_t shn = SIZE_MAX;
  for (size_t i = 0; i < r.dev.writes.size(); ++i)
    if (r.dev.writes[i].first == nvme::reg::kCc && (r.dev.writes[i].second & nvme::cc::kShnMask))
      shn = i;
  ASSERT_NE(shn, SIZE_MAX);
  EXPECT_EQ(r.dev.writes[shn].second & nvme::cc::kShnMask, nvme::cc::kShnNormal);
  EXPECT_FALSE(r.dev.read32(nvme::reg::kCc) & nvme::cc::kEnable);
}

TEST(NvmeController, CreateAndDeleteIoQueue) {
  Rig r;
  nvme::Controller c(r.dev, r.dma, r.clock);
  c.enable();
  auto q = c.create_io_queue(1, 8, true, 1);
  EXPECT_EQ(q->qid(), 1);
  EXPECT_EQ(q->depth(), 8u);
  EXPECT_NO_THROW(c.delete_io_queue(*q));
}

}  // namespace
}  // namespace nvmesim::hw
