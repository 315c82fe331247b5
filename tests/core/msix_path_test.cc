// Issue 10 item 7: the MSI-X message path shared by the drives behind one root complex
// (root complex + IOMMU interrupt remapping) as a FIFO server, on its own; and in a run,
// drives that share a path against drives with a path each.
#include "models/msix_path.h"

#include <gtest/gtest.h>

#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

Time at_ns(int64_t ns) { return Time::zero() + Duration::ns(ns); }

TEST(MsixPath, MessagesQueueBehindEachOtherAtTheCapacityAndAllPayTheLatency) {
  MsixPath p(MsixPathSpec{4e6, Duration::ns(100), 1});  // 250 ns per message
  EXPECT_EQ(p.delay(at_ns(1000)), Duration::ns(250 + 100));
  EXPECT_EQ(p.delay(at_ns(1000)), Duration::ns(500 + 100));  // behind the first
  EXPECT_EQ(p.delay(at_ns(1100)), Duration::ns(650 + 100));  // path free at 1750
  EXPECT_EQ(p.queued(), Duration::ns(250 + 400));
  EXPECT_EQ(p.delay(at_ns(5000)), Duration::ns(350));  // idle again: no wait
  EXPECT_EQ(p.messages(), 4u);
}

TEST(MsixPath, UnlimitedCapacityOnlyAddsTheLatency) {
  MsixPath p(MsixPathSpec{0, Duration::ns(80), 1});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(p.delay(at_ns(10)), Duration::ns(80));
  EXPECT_EQ(p.queued(), Duration::zero());
}

// Two drives, one job each on its own core, 8 in flight per 10 us: 0.8M messages/s
// per drive. Behind one path of 1M messages/s the two drives together get no more than
// the path carries; with a path each they lose less; without the path model, nothing.
TEST(MsixPath, DrivesBehindOnePathContendEvenWithACoreEach) {
  nlohmann::json doc = testing::ideal_scenario();
  doc["drives"][0]["profile"]["units"] = 64;
  doc["drives"].push_back(doc["drives"][0]);
  doc["drives"][1]["name"] = "d1";
  doc["jobs"][0]["iodepth"] = 8;
  doc["jobs"][0]["drives"] = {"d0"};
  doc["jobs"].push_back({{"name", "k"}, {"iodepth", 8}, {"cpus_allowed", "1"}, {"drives", {"d1"}}});
  doc["duration_us"] = 20000;
  auto iops = [](const nlohmann::json& r) { return r["aggregate"]["iops"].get<double>(); };
  const double base = iops(testing::run(doc));
  doc["host"]["msix_path"] = {{"messages_per_s", 1e6}, {"latency_ns", 0}, {"drives_per_path", 2}};
  const double shared = iops(testing::run(doc));
  doc["host"]["msix_path"]["drives_per_path"] = 1;
  const double own = iops(testing::run(doc));
  EXPECT_NEAR(base, 1.6e6, 0.01e6);
  EXPECT_LE(shared, 1.0e6 * 1.001);  // the path's capacity: one message per I/O here
  EXPECT_GT(own, shared * 1.3);
  EXPECT_LT(own, base);
}

}  // namespace
}  // namespace nvmesim
