// Queue-pair ring logic on a live fake: wrap, phase flips, SQ head tracking, doorbells.
#include "hw/nvme/queue.h"

#include <gtest/gtest.h>

#include "hw/nvme/controller.h"
#include "hw/tests/fakes/fake_controller.h"

namespace nvmesim::hw {
namespace {

using testing::FakeClock;
using testing::FakeController;
using testing::FakeDma;
using testing::FakeVectors;

struct QueueRig {
  FakeDma dma;
  FakeVectors vectors;
  FakeController dev{dma, &vectors};
  FakeClock clock;
  nvme::Controller ctrl{dev, dma, clock};
  std::unique_ptr<nvme::QueuePair> q;
  DmaBuffer data{dma, 4096};
  uint16_t cid = 0;

  explicit QueueRig(uint32_t depth) {
    ctrl.enable();
    q = ctrl.create_io_queue(1, depth, false, 0);
  }
  void submit_read() {
    nvme::Sqe s = nvme::rw(nvme::io::kRead, 1, cid, 1);
    s.prp1 = data.iova();
    s.cid = cid++;
    q->submit(s);
  }
  std::vector<uint16_t> reap(uint32_t budget = UINT32_MAX) {
    std::vector<uint16_t> got;
    q->reap(budget, [&](const nvme::Cqe& e) { got.push_back(e.cid); });
    return got;
  }
  uint32_t last_cq_doorbell() const {
    uint32_t off = nvme::cq_doorbell(1, 0);
    for (auto it = dev.writes.rbegin(); it != dev.writes.rend(); ++it)
      if (it->first == off) return uint32_t(it->second);
    return UINT32_MAX;
  }
};

TEST(NvmeQueue, WrapsAndFlipsPhaseOverManyRounds) {
  QueueRig r(4);
  uint16_t expect = 0;
  for (int round = 0; round < 10; ++round) {
    r.submit_read();
    EXPECT_TRUE(r.q->ring_sq_doorbell());
    ASSERT_TRUE(r.q->cqe_pending()) << "round " << round;
    auto got = r.reap();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], expect++);
    EXPECT_FALSE(r.q->cqe_pending());
    EXPECT_EQ(r.q->inflight(), 0u);
    EXPECT_EQ(r.last_cq_doorbell(), r.q->cq().head);
  }
  // 10 entries through a 4-slot CQ: head at 10 % 4, phase flipped twice (1 -> 0 -> 1).
  EXPECT_EQ(r.q->cq().head, 2u);
  EXPECT_EQ(r.q->cq().phase, 1);
}

TEST(NvmeQueue, BatchesUpToDepthMinusOne) {
  QueueRig r(4);
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 3; ++i) r.submit_read();
    EXPECT_TRUE(r.q->sq_full()) << "a ring of 4 holds 3";
    r.dev.faults.hold_io = true;
    r.q->ring_sq_doorbell();
    EXPECT_EQ(r.q->inflight(), 3u);
    EXPECT_FALSE(r.q->cqe_pending());
    r.dev.release_io();
    auto got = r.reap();
    EXPECT_EQ(got.size(), 3u);
    EXPECT_EQ(r.q->inflight(), 0u);
    EXPECT_FALSE(r.q->sq_full()) << "SQ head follows the CQEs' SQHD";
  }
}

TEST(NvmeQueue, ReapBudgetLeavesTheRestAndWritesOneDoorbell) {
  QueueRig r(8);
  for (int i = 0; i < 5; ++i) r.submit_read();
  r.q->ring_sq_doorbell();
  uint64_t before = r.q->cq_doorbell_writes;
  EXPECT_EQ(r.reap(2).size(), 2u);
  EXPECT_EQ(r.q->cq_doorbell_writes, before + 1);
  EXPECT_TRUE(r.q->cqe_pending());
  EXPECT_EQ(r.reap().size(), 3u);
  EXPECT_EQ(r.q->cq_doorbell_writes, before + 2);
  EXPECT_EQ(r.reap().size(), 0u);
  EXPECT_EQ(r.q->cq_doorbell_writes, before + 2) << "no doorbell when nothing was consumed";
}

TEST(NvmeQueue, NoSqDoorbellWhenTailDidNotMove) {
  QueueRig r(8);
  r.submit_read();
  EXPECT_TRUE(r.q->ring_sq_doorbell());
  EXPECT_FALSE(r.q->ring_sq_doorbell());
  EXPECT_EQ(r.q->sq_doorbell_writes, 1u);
}

TEST(NvmeCommand, PrpsForOneTwoAndManyPages) {
  nvme::Sqe s;
  uint64_t list[16] = {};
  nvme::set_prps(s, 0x10000, 4096, list, 0x90000);
  EXPECT_EQ(s.prp1, 0x10000u);
  EXPECT_EQ(s.prp2, 0u);
  nvme::set_prps(s, 0x10000, 8192, list, 0x90000);
  EXPECT_EQ(s.prp2, 0x11000u);
  nvme::set_prps(s, 0x10000, 4 * 4096, list, 0x90000);
  EXPECT_EQ(s.prp2, 0x90000u);
  EXPECT_EQ(list[0], 0x11000u);
  EXPECT_EQ(list[2], 0x13000u);
}

}  // namespace
}  // namespace nvmesim::hw
