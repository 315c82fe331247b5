// Issue 10 item 7 with back-pressure: an MSI-X message is a posted write, and a device's
// later posted writes cannot pass it (PCIe ordering), so a message waiting in a shared
// MsixPath holds up the device's CQE writes; with finite credits, signals merge into one
// waiting message per vector. The ordering on its own, the device with it, and a run; and
// the line that carries the drives' read data as well (data_bytes_per_s).
#include "models/posted_write_order.h"

#include <gtest/gtest.h>

#include <memory>
#include <variant>
#include <vector>

#include "models/device.h"
#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

Time at_ns(int64_t ns) { return Time::zero() + Duration::ns(ns); }

TEST(PostedWriteOrder, WritesBehindAMessageWaitUntilItLeavesAndCreditsRunOut) {
  MsixPath path(MsixPathSpec{4e6, Duration::ns(100), 2, 2});  // 250 ns per message
  PostedWriteOrder a(&path, 2);
  PostedWriteOrder b(&path, 2);
  EXPECT_EQ(a.visible_from(at_ns(1000)), at_ns(1000));  // nothing ahead: at once
  EXPECT_EQ(a.emit(at_ns(1000)), at_ns(1250));
  EXPECT_TRUE(a.stalls(at_ns(1100)));
  EXPECT_EQ(a.visible_from(at_ns(1100)), at_ns(1250));  // a CQE written behind it
  EXPECT_EQ(a.emit(at_ns(1100)), at_ns(1500));           // behind the first
  EXPECT_FALSE(a.has_credit());
  // The other drive's message queues in the shared path, but a's writes do not wait
  // for it, nor b's for a's (each device's order is its own).
  EXPECT_EQ(b.visible_from(at_ns(1100)), at_ns(1100));
  EXPECT_EQ(b.emit(at_ns(1100)), at_ns(1750));
  EXPECT_EQ(a.visible_from(at_ns(1600)), at_ns(1600));
  a.left();
  EXPECT_TRUE(a.has_credit());
  EXPECT_EQ(a.latency(), Duration::ns(100));  // paid after the ordering point
}

// With data_bytes_per_s the ordering point is one line for every drive behind it: a
// message holds up the other drive's data too, data take their time in the line, and
// posted_credits 0 puts no limit on messages.
TEST(PostedWriteOrder, OnALineThatCarriesDataEveryDrivesWritesWaitForEverythingAheadOfThem) {
  MsixPathSpec spec{4e6, Duration::zero(), 2, 0};  // 250 ns per message
  spec.data_bytes_per_s = 4e9;                      // 1024 ns per 4 KiB
  MsixPath path(spec);
  PostedWriteOrder a(&path, 0);
  PostedWriteOrder b(&path, 0);
  ASSERT_TRUE(a.carries_data());
  EXPECT_EQ(a.emit(at_ns(1000)), at_ns(1250));
  EXPECT_TRUE(b.stalls(at_ns(1100)));                 // the other drive's message is ahead
  EXPECT_EQ(b.visible_from(at_ns(1100)), at_ns(1250));
  EXPECT_EQ(b.carry(at_ns(1100), 4096), at_ns(2274));  // behind it, then its own 1024 ns
  EXPECT_TRUE(a.has_credit());
  EXPECT_EQ(a.emit(at_ns(1300)), at_ns(2524));  // a message waits behind data as well
  EXPECT_TRUE(a.has_credit());                   // credits 0: no limit, nothing merges
  EXPECT_EQ(a.visible_from(at_ns(3000)), at_ns(3000));  // the line is clear
}

// One queue, commands of 10 us, a path of 1 us per message and one credit.
struct OrderedDeviceTest : ::testing::Test {
  static constexpr uint32_t kDepth = 64;
  sim::EventQueue eq;
  std::vector<Request> requests = std::vector<Request>(64);
  std::vector<int64_t> message_ns;
  QueueMemory mem{kDepth};
  nvme::SqCursor sq{.depth = kDepth};
  MsixPath path{MsixPathSpec{1e6, Duration::zero(), 1, 1}};
  std::unique_ptr<Device> dev;

  static void on_message(void* self, uint32_t, uint32_t, Duration after) {
    auto* t = static_cast<OrderedDeviceTest*>(self);
    t->message_ns.push_back((t->eq.now() + after).ns());
  }
  void make(bool ordered) {
    DeviceProfile p;
    p.units = 64;
    p.iops_max = 0;
    p.link_bytes_per_s = 0;
    p.read.dist.kind = DistSpec::Kind::constant;
    p.read.dist.mean = Duration::us(10);
    p.sq_fetch = Duration::zero();
    p.cqe_post = Duration::zero();
    dev = std::make_unique<Device>(eq, p, 0, 1, MsixSink{this, &OrderedDeviceTest::on_message}, requests);
    dev->add_queue(&mem, kDepth, 0, true);
    if (ordered) dev->order_posted_writes(&path, 1);
  }
  void submit(uint32_t n) {
    for (uint32_t rid = 0; rid < n; ++rid) mem.sq[sq.push()] = rid;
    dev->sq_doorbell(0, sq.ring_doorbell());
  }
  void run_until_ns(int64_t ns) { eq.run_until(at_ns(ns)); }
};

TEST_F(OrderedDeviceTest, WithoutOrderingEveryPostingIsWrittenAndSignalledAtOnce) {
  make(false);
  submit(4);
  run_until_ns(10000);
  EXPECT_EQ(dev->cq_pending(0, 0), 4u);
  EXPECT_EQ(message_ns, (std::vector<int64_t>{10000, 10000, 10000, 10000}));
}

TEST_F(OrderedDeviceTest, CqesWaitBehindTheMessageAndLaterSignalsMergeIntoOneWaitingMessage) {
  make(true);
  submit(4);  // all four units finish at 10 us
  run_until_ns(10000);
  // The first CQE is written, its message enters the path (leaves at 11 us); the other
  // three are written behind it, and their signals wait for the credit as one message.
  EXPECT_EQ(dev->cq_pending(0, 0), 1u);
  EXPECT_TRUE(message_ns.empty());
  EXPECT_EQ(requests[1].posted, at_ns(11000));
  EXPECT_EQ(dev->stats().cqe_writes_stalled, 3u);
  EXPECT_EQ(dev->stats().msix_merged, 2u);
  EXPECT_FALSE(dev->post_due(0, at_ns(10999)));  // a reaper cannot see them earlier
  run_until_ns(11000);
  EXPECT_EQ(dev->cq_pending(0, 0), 4u);
  // Landed, though no event wrote them: a policy's look at the queue sees them, the
  // statistics count them, and a reaper takes them in order.
  EXPECT_TRUE(dev->cqe_landed(0));
  EXPECT_EQ(dev->stats().commands, 4u);
  EXPECT_EQ(message_ns, (std::vector<int64_t>{11000}));
  run_until_ns(20000);
  EXPECT_EQ(message_ns, (std::vector<int64_t>{11000, 12000}));  // the merged one, after it
  EXPECT_EQ(dev->stats().msix_messages, 2u);
}

TEST_F(OrderedDeviceTest, AReaperSeesAHeldCqeOnceTheMessageAheadHasLeft) {
  make(true);
  submit(2);
  run_until_ns(10500);
  EXPECT_EQ(dev->cq_pending(0, 0), 1u);
  EXPECT_TRUE(dev->post_due(0, at_ns(11000)));  // its reaper's loop reaches 11 us
  EXPECT_EQ(dev->cq_pending(0, 0), 2u);
  run_until_ns(20000);
  EXPECT_EQ(dev->cq_pending(0, 0), 2u);  // not written twice
  EXPECT_EQ(dev->stats().commands, 2u);
}

// Two ideal drives of 64 units, one job each on its own core with `iodepth` in flight,
// submitted 8 at a time, for 20 ms.
nlohmann::json two_drives_two_jobs(int iodepth) {
  nlohmann::json doc = testing::ideal_scenario();
  doc["drives"][0]["profile"]["units"] = 64;
  doc["drives"].push_back(doc["drives"][0]);
  doc["drives"][1]["name"] = "d1";
  doc["jobs"][0] = {{"name", "j"}, {"iodepth", iodepth}, {"iodepth_batch_submit", 8}, {"cpus_allowed", "0"}, {"drives", {"d0"}}};
  doc["jobs"].push_back(doc["jobs"][0]);
  doc["jobs"][1]["name"] = "k";
  doc["jobs"][1]["cpus_allowed"] = "1";
  doc["jobs"][1]["drives"] = {"d1"};
  doc["duration_us"] = 20000;
  return doc;
}

double iops(const nlohmann::json& r) { return r["aggregate"]["iops"].get<double>(); }

// Two drives behind one path of 1M messages/s, one job each keeping 16 in flight and
// submitting them 8 at a time, so postings come in bursts of 8 (3.2M I/O per second
// without the path). Ordered, the path carries at most its capacity in messages, the
// CQEs wait behind them, and a message waiting for a credit stands for the rest of its
// burst, so more I/O completes than messages pass.
TEST(PostedWriteOrderRun, ASaturatedOrderedPathCarriesItsCapacityInMessagesAndMoreInCompletions) {
  nlohmann::json doc = two_drives_two_jobs(16);
  const double no_path = iops(testing::run(doc));
  doc["host"]["msix_path"] = {{"messages_per_s", 1e6}, {"latency_ns", 0}, {"drives_per_path", 2}, {"posted_credits", 1}};
  const nlohmann::json r = testing::run(doc);
  uint64_t messages = 0, merged = 0, behind = 0;
  for (const auto& d : r["drives"]) {
    messages += d["device"]["msix_messages"].get<uint64_t>();
    merged += d["device"]["msix_merged_awaiting_credit"].get<uint64_t>();
    behind += d["device"]["cqe_writes_behind_msix"].get<uint64_t>();
  }
  const double window_s = r["window_ns"].get<double>() / 1e9;
  EXPECT_NEAR(no_path, 3.2e6, 0.02e6);
  EXPECT_LE(static_cast<double>(messages) / window_s, 1.0e6 * 1.001);
  EXPECT_GT(merged, 0u);
  EXPECT_GT(behind, 0u);
  EXPECT_GT(iops(r), 1.0e6 * 1.2);
  EXPECT_LT(iops(r), no_path * 0.99);  // the CQEs wait behind the messages
}

// The mechanism of published.md's per-socket measurements (remappable MSIs: per-drive
// IOPS falls as drives are added behind one root complex; posted MSIs recover it): when
// every CQE is a message and messages and read data share one line, the drives behind it
// complete at most 1 / (message time + data time) commands per second between them,
// however fast each drive is, and a line per drive gives each drive that rate.
TEST(PostedWriteOrderRun, DrivesSharingALineOfMessagesAndDataShareItsRate) {
  nlohmann::json doc = two_drives_two_jobs(32);
  const double free_drives = iops(testing::run(doc));  // 32 in flight / 10 us: 3.2M/s per drive
  // 1 us per message and 1 us per 4 KiB of read data: 0.5M commands/s per line.
  doc["host"]["msix_path"] = {{"messages_per_s", 1e6}, {"latency_ns", 0}, {"drives_per_path", 2},
                              {"posted_credits", 0}, {"data_bytes_per_s", 4096e6}};
  const nlohmann::json shared = testing::run(doc);
  doc["host"]["msix_path"]["drives_per_path"] = 1;
  const nlohmann::json apart = testing::run(doc);
  doc["host"]["msix_path"]["data_bytes_per_s"] = 0;  // the line orders messages only
  doc["host"]["msix_path"]["posted_credits"] = 1;
  const double messages_only = iops(testing::run(doc));
  EXPECT_GT(free_drives, 6e6);
  EXPECT_LE(iops(shared), 0.5e6 * 1.001);
  EXPECT_GT(iops(shared), 0.5e6 * 0.95);
  EXPECT_LE(iops(apart), 1.0e6 * 1.001);
  EXPECT_GT(iops(apart), 1.0e6 * 0.95);
  for (const auto& d : shared["drives"]) {  // every CQE was a message; none merged
    EXPECT_GE(d["device"]["msix_messages"].get<double>(), d["device"]["commands"].get<double>() * 0.99);
    EXPECT_EQ(d["device"]["msix_merged_awaiting_credit"].get<uint64_t>(), 0u);
  }
  EXPECT_GT(messages_only, 1.0e6 * 1.5);  // merged signals: the messages no longer cap the drives
  EXPECT_EQ(shared["scenario"]["host"]["msix_path"]["data_bytes_per_s"].get<double>(), 4096e6);
}

TEST(PostedWriteOrderRun, ANegativeOrHugeDataRateIsAnErrorNamingItsPath) {
  nlohmann::json doc = testing::ideal_scenario();
  for (double bad : {-1.0, 1e14}) {
    doc["host"]["msix_path"] = {{"messages_per_s", 1e6}, {"data_bytes_per_s", bad}};
    auto loaded = load_scenario_json(doc, LoadOptions{});
    ASSERT_TRUE(std::holds_alternative<InputError>(loaded));
    EXPECT_EQ(std::get<InputError>(loaded).path, "/host/msix_path/data_bytes_per_s");
  }
}

}  // namespace
}  // namespace nvmesim
