#include "models/id_fifo.h"

#include <gtest/gtest.h>

#include <deque>

namespace nvmesim {
namespace {

// Against std::deque, which it replaced: pushes and pops interleaved so the ring wraps
// many times and grows while wrapped.
TEST(IdFifo, KeepsFifoOrderAcrossWrapsAndGrowth) {
  IdFifo f;
  std::deque<uint32_t> want;
  uint64_t x = 7;
  uint32_t next = 0;
  for (int step = 0; step < 200000; ++step) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const bool push = want.empty() || (x >> 60) < (step < 100000 ? 9u : 7u);  // grows, then shrinks
    if (push) {
      f.push_back(next);
      want.push_back(next++);
    } else {
      ASSERT_EQ(f.front(), want.front());
      f.pop_front();
      want.pop_front();
    }
    ASSERT_EQ(f.size(), want.size());
    if (!want.empty()) {
      ASSERT_EQ(f[want.size() - 1], want.back());
    }
  }
  EXPECT_GT(next, 100000u);
}

}  // namespace
}  // namespace nvmesim
