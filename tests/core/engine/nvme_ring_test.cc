#include "vocab/nvme_ring.h"

#include <gtest/gtest.h>

namespace nvmesim::nvme {
namespace {

TEST(NvmeRing, DistanceWrapsAroundTheRing) {
  EXPECT_EQ(ring_distance(0, 0, 8), 0u);
  EXPECT_EQ(ring_distance(2, 5, 8), 3u);
  EXPECT_EQ(ring_distance(6, 1, 8), 3u);  // 6,7,0 -> 1
  EXPECT_EQ(ring_distance(5, 4, 8), 7u);
}

TEST(NvmeRing, SqHoldsDepthMinusOneAndSkipsNeedlessDoorbells) {
  SqCursor sq{.depth = 4};
  EXPECT_FALSE(sq.doorbell_needed());
  EXPECT_EQ(sq.free_slots(), 3u);
  EXPECT_EQ(sq.push(), 0u);
  EXPECT_EQ(sq.push(), 1u);
  EXPECT_EQ(sq.push(), 2u);
  EXPECT_TRUE(sq.full());
  EXPECT_TRUE(sq.doorbell_needed());
  EXPECT_EQ(sq.ring_doorbell(), 3u);
  EXPECT_FALSE(sq.doorbell_needed());
  sq.head = 2;  // the controller consumed two (SQHD)
  EXPECT_EQ(sq.free_slots(), 2u);
  EXPECT_EQ(sq.push(), 3u);
  EXPECT_EQ(sq.push(), 0u);  // wrapped
  EXPECT_TRUE(sq.full());
}

TEST(NvmeRing, CqPhaseFlipsOnEveryWrap) {
  CqProducer dev{.depth = 3};
  CqCursor host{.depth = 3};
  uint8_t phases[7];
  uint32_t slots[7];
  for (int i = 0; i < 7; ++i) {
    slots[i] = dev.post(&phases[i]);
    EXPECT_TRUE(host.is_new(phases[i])) << i;
    host.advance();
    dev.host_head = host.head;
  }
  const uint32_t want_slots[7] = {0, 1, 2, 0, 1, 2, 0};
  const uint8_t want_phase[7] = {1, 1, 1, 0, 0, 0, 1};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(slots[i], want_slots[i]) << i;
    EXPECT_EQ(phases[i], want_phase[i]) << i;
  }
  // An entry left from the previous pass (old phase) is not new.
  EXPECT_FALSE(host.is_new(0));
}

TEST(NvmeRing, CqFullWhenOneSlotFromTheHostHead) {
  CqProducer dev{.depth = 4};
  uint8_t p;
  dev.post(&p);
  dev.post(&p);
  EXPECT_FALSE(dev.full());
  dev.post(&p);
  EXPECT_TRUE(dev.full());
  dev.host_head = 1;
  EXPECT_FALSE(dev.full());
}

TEST(NvmeRing, DriverInflightIsSqDoorbellMinusCqHead) {
  SqCursor sq{.depth = 8};
  CqCursor cq{.depth = 8};
  for (int i = 0; i < 5; ++i) sq.push();
  EXPECT_EQ(driver_inflight(sq, cq), 0u);  // nothing rung yet
  sq.ring_doorbell();
  EXPECT_EQ(driver_inflight(sq, cq), 5u);
  cq.advance();
  cq.advance();
  EXPECT_EQ(driver_inflight(sq, cq), 3u);
  sq.head = 5;                            // the controller fetched all five
  for (int i = 0; i < 4; ++i) sq.push();  // tail wraps: 5, 6, 7, 0 -> 1
  sq.ring_doorbell();
  EXPECT_EQ(sq.db_tail, 1u);
  EXPECT_EQ(driver_inflight(sq, cq), 7u);  // 9 submitted, 2 consumed
}

}  // namespace
}  // namespace nvmesim::nvme
