#include "models/system/ring_fifo.h"

#include <gtest/gtest.h>

#include <deque>

namespace nvmesim {
namespace {

// Against std::deque, which it replaced: pushes and pops interleaved so the ring wraps
// many times and grows while wrapped.
TEST(RingFifo, KeepsFifoOrderAcrossWrapsAndGrowth) {
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

// insert_sorted places an element as the device's postings need it: after every element
// not later than it (equal times keep their order), across wraps and growth, as a search
// from the back of a std::deque did.
TEST(RingFifo, InsertSortedKeepsTimeOrderAndEqualTimesInArrivalOrder) {
  RingFifo<std::pair<int64_t, uint32_t>> f;
  std::deque<std::pair<int64_t, uint32_t>> want;
  const auto by_time = [](const auto& a, const auto& b) { return a.first < b.first; };
  uint64_t x = 11;
  uint32_t next = 0;
  int64_t now = 0;
  for (int step = 0; step < 100000; ++step) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    if (want.empty() || (x >> 62) != 0) {
      const int64_t t = now + static_cast<int64_t>((x >> 40) % 50);  // often equal, often out of order
      f.insert_sorted({t, next}, by_time);
      auto it = want.end();
      while (it != want.begin() && std::prev(it)->first > t) --it;
      want.insert(it, {t, next++});
    } else {
      ASSERT_EQ(f.front(), want.front());
      now = want.front().first;
      f.pop_front();
      want.pop_front();
    }
    ASSERT_EQ(f.size(), want.size());
    for (std::size_t i = 0; i < want.size() && i < 4; ++i) ASSERT_EQ(f[i], want[i]);
    if (!want.empty()) {
      ASSERT_EQ(f.back(), want.back());
    }
  }
  EXPECT_GT(next, 50000u);
}

}  // namespace
}  // namespace nvmesim
