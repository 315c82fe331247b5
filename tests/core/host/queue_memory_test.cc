// A queue pair's rings: zero bytes at the start, the SQ and CQ apart on their own cache
// lines, and several queues' rings side by side in one block of ZeroPages, as a system
// places a drive's queues.
#include "models/host/queue_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "models/system/zero_pages.h"
#include "sim/address_sanitizer.h"

namespace nvmesim {
namespace {

TEST(ZeroPages, GivesZeroBytesThatCanBeWrittenAndMovesItsMapping) {
  ZeroPages a(3 * 4096 + 5);
  ASSERT_NE(a.data(), nullptr);
  EXPECT_EQ(a.size(), 3u * 4096 + 5);
  for (std::size_t i = 0; i < a.size(); i += 1000) EXPECT_EQ(a.data()[i], std::byte{0});
  a.data()[a.size() - 1] = std::byte{7};
  std::byte* p = a.data();
  ZeroPages b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.data()[b.size() - 1], std::byte{7});
  ZeroPages c(64);
  c = std::move(b);  // c's own mapping goes, b's comes
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(b.data(), nullptr);
}

TEST(QueueMemory, RingsOfItsOwnStartAsZeroAndDoNotOverlap) {
  constexpr uint32_t kDepth = 1024;
  QueueMemory m(kDepth);
  for (uint32_t i = 0; i < kDepth; ++i) {
    EXPECT_EQ(m.sq[i], 0u);
    EXPECT_EQ(m.cq[i].phase, 0u);
  }
  for (uint32_t i = 0; i < kDepth; ++i) m.sq[i] = 0xffffffffu;
  for (uint32_t i = 0; i < kDepth; ++i) ASSERT_EQ(m.cq[i].cid, 0u) << i;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m.sq) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m.cq) % 64, 0u);
}

TEST(QueueMemory, QueuesPlacedInOneBlockKeepToTheirOwnBytes) {
  constexpr uint32_t kDepth = 33;  // neither ring a whole number of cache lines
  const std::size_t bytes = QueueMemory::bytes(kDepth);
  EXPECT_GE(bytes, kDepth * (sizeof(uint32_t) + sizeof(CqEntry)));
  EXPECT_EQ(bytes % 64, 0u);
  ZeroPages block(3 * bytes);
  QueueMemory q0(kDepth, block.data()), q1(kDepth, block.data() + bytes), q2(kDepth, block.data() + 2 * bytes);
  for (uint32_t i = 0; i < kDepth; ++i) {
    q1.sq[i] = ~0u;
    q1.cq[i] = CqEntry{~0u, ~0u, 1};
  }
  for (uint32_t i = 0; i < kDepth; ++i) {
    EXPECT_EQ(q0.sq[i], 0u);
    EXPECT_EQ(q0.cq[i].phase, 0u);
    EXPECT_EQ(q2.sq[i], 0u);
    EXPECT_EQ(q2.cq[i].phase, 0u);
  }
  EXPECT_LE(reinterpret_cast<std::byte*>(q2.cq + kDepth), block.data() + 3 * bytes);
}

// The guard after each ring: an index one past the end is reported, in the SQ and in the
// CQ, though the next ring follows in the same mapping (the sanitizer stage runs this).
TEST(QueueMemoryDeathTest, AnIndexPastARingsEndIsReportedUnderAddressSanitizer) {
  if (!sim::kAddressSanitizer) GTEST_SKIP() << "the guards are AddressSanitizer's poison: nothing to see without it";
  constexpr uint32_t kDepth = 64;
  ZeroPages block(2 * QueueMemory::bytes(kDepth));
  QueueMemory q0(kDepth, block.data()), q1(kDepth, block.data() + QueueMemory::bytes(kDepth));
  volatile uint32_t* sq = q0.sq;
  volatile uint32_t* cq_cid = &q0.cq[kDepth - 1].cid;
  sq[kDepth - 1] = 1;  // the last entry is the ring's own
  *cq_cid = 1;
  EXPECT_DEATH(sq[kDepth] = 1, "use-after-poison");
  EXPECT_DEATH(cq_cid[3] = 1, "use-after-poison");  // q0.cq[kDepth].cid
  EXPECT_EQ(q1.sq[0], 0u);
}

}  // namespace
}  // namespace nvmesim
