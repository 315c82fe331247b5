// The number of I/O queues of a run, at the edges: no vector at all is refused instead
// of wrapping, and the cap by vectors and by the controller's grant.
#include "hw/runner/run/io_queue_count.h"

#include <gtest/gtest.h>

#include "hw/base/refusal.h"

namespace nvmesim::hw {
namespace {

TEST(IoQueueCount, ZeroVectorsIsRefusedNotWrapped) {
  try {
    io_queue_count("0000:00:04.0", 1, 4, 0);
    FAIL() << "no refusal";
  } catch (const Refusal& e) {
    EXPECT_NE(std::string(e.what()).find("0 MSI-X vectors"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0000:00:04.0"), std::string::npos) << e.what();
  }
}

TEST(IoQueueCount, NoGrantedQueueIsRefused) { EXPECT_THROW(io_queue_count("x", 2, 0, 5), Refusal); }

TEST(IoQueueCount, CappedByTheGrant) {
  EXPECT_EQ(io_queue_count("x", 4, 4, 5), 4u);
  EXPECT_EQ(io_queue_count("x", 4, 2, 5), 2u);
  EXPECT_EQ(io_queue_count("x", 1, 64, 65), 1u);
}

TEST(IoQueueCount, CappedByTheVectorsBeyondTheAdminQueues) {
  EXPECT_EQ(io_queue_count("x", 4, 4, 3), 2u);
  EXPECT_EQ(io_queue_count("x", 4, 4, 2), 1u);
  EXPECT_EQ(io_queue_count("x", 4, 4, 1), 1u);  // one queue; only a polled policy can run on it
}

}  // namespace
}  // namespace nvmesim::hw
