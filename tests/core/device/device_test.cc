// The device model on its own: MSI-X mask and pending bit, interrupt coalescing by
// aggregation threshold (THR) and time (TIME), and coalescing disabled per vector (CD).
// Commands take a constant 10 us; the host side is this test, which rings doorbells and
// records the MSI-X messages.
#include "models/device/device.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace nvmesim {
namespace {

struct Message {
  int64_t at_ns;
  uint32_t vector;
  bool operator==(const Message&) const = default;
};

struct DeviceTest : ::testing::Test {
  static constexpr uint32_t kDepth = 64;
  sim::EventQueue eq;
  std::vector<Request> requests = std::vector<Request>(256);
  std::vector<Message> messages;
  std::vector<std::unique_ptr<QueueMemory>> mem;
  std::vector<nvme::SqCursor> sq;
  std::unique_ptr<Device> dev;
  uint32_t next_rid = 0;
  DeviceProfile prof = profile();  // a test may change it before make()

  static DeviceProfile profile() {
    DeviceProfile p;
    p.units = 64;
    p.iops_max = 0;          // no front-end ceiling
    p.link_bytes_per_s = 0;  // no link ceiling
    p.read.dist.kind = DistSpec::Kind::constant;
    p.read.dist.mean = Duration::us(10);
    p.sq_fetch = Duration::zero();
    p.cqe_post = Duration::zero();
    p.admin_command = Duration::us(20);
    return p;
  }
  static void on_message(void* self, uint32_t, uint32_t vector, Duration after, bool) {
    auto* t = static_cast<DeviceTest*>(self);
    t->messages.push_back({(t->eq.now() + after).ns(), vector});
  }
  // `queues` queue pairs, queue i on vector i.
  void make(uint32_t queues) {
    dev = std::make_unique<Device>(eq, prof, 0, 1, MsixSink{this, &DeviceTest::on_message}, requests);
    for (uint32_t i = 0; i < queues; ++i) {
      mem.push_back(std::make_unique<QueueMemory>(kDepth));
      sq.push_back(nvme::SqCursor{.depth = kDepth});
      dev->add_queue(mem.back().get(), kDepth, i, true);
    }
  }
  // Submits `n` reads on queue `qid` with one doorbell, now.
  void submit(uint32_t qid, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t rid = next_rid++;
      requests[rid].qid = qid;
      mem[qid]->sq[sq[qid].push()] = rid;
    }
    dev->sq_doorbell(qid, sq[qid].ring_doorbell());
  }
  void run_until_us(int64_t us) { eq.run_until(Time::zero() + Duration::us(us)); }
};

TEST_F(DeviceTest, EveryPostingSendsAMessageOnAnUnmaskedVector) {
  make(1);
  submit(0, 3);
  run_until_us(100);
  EXPECT_EQ(messages.size(), 3u);
  EXPECT_EQ(dev->stats().msix_messages, 3u);
  EXPECT_EQ(dev->stats().commands, 3u);
  EXPECT_EQ(dev->cq_pending(0, 0), 3u);
}

TEST_F(DeviceTest, AMaskedVectorSetsThePendingBitAndUnmaskingSendsOneMessage) {
  make(1);
  dev->set_vector_masked(0, true);
  submit(0, 3);
  run_until_us(100);
  EXPECT_TRUE(messages.empty());
  EXPECT_TRUE(dev->vector_pending(0));
  EXPECT_EQ(dev->stats().msix_held, 3u);

  dev->set_vector_masked(0, false);
  EXPECT_EQ(messages, (std::vector<Message>{{100000, 0}}));  // at once, one for all three
  EXPECT_FALSE(dev->vector_pending(0));
  EXPECT_EQ(dev->stats().msix_messages, 1u);

  dev->set_vector_masked(0, true);  // masking again with nothing pending sends nothing
  dev->set_vector_masked(0, false);
  EXPECT_EQ(messages.size(), 1u);
}

TEST_F(DeviceTest, CoalescingSendsOneMessagePerThresholdOfPostings) {
  make(1);
  dev->admin_set_coalescing(2, 100);  // THR is 0's based: 3 postings; TIME 10 ms
  run_until_us(20);                   // the Set Features command completes
  ASSERT_TRUE(dev->coalescing_active());
  submit(0, 7);
  run_until_us(100);
  // Postings 3 and 6 send; the 7th waits for the timer.
  EXPECT_EQ(messages.size(), 2u);
  EXPECT_EQ(dev->stats().coalesced, 5u);
  run_until_us(20 + 10 + 10000);
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[2].at_ns, (20 + 10 + 10000) * 1000);  // TIME after the first held posting
}

TEST_F(DeviceTest, CoalescingTimeSendsWhatIsHeldAfterTimeFromTheFirstHeldPosting) {
  make(1);
  dev->admin_set_coalescing(7, 1);  // 8 postings or 100 us
  run_until_us(20);
  submit(0, 2);  // posted at 30 us
  run_until_us(129);
  EXPECT_TRUE(messages.empty());
  run_until_us(200);
  EXPECT_EQ(messages, (std::vector<Message>{{130000, 0}}));
  submit(0, 1);  // a new aggregation starts its own timer
  run_until_us(1000);
  EXPECT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1].at_ns, (200 + 10 + 100) * 1000);
}

TEST_F(DeviceTest, SettingCoalescingSetsItAfterTheAdminCommandCompletes) {
  make(1);
  dev->admin_set_coalescing(7, 1);
  EXPECT_FALSE(dev->coalescing_active());
  submit(0, 1);  // posted at 10 us, before the command completes at 20 us: not held
  run_until_us(20);
  EXPECT_EQ(messages.size(), 1u);
  EXPECT_TRUE(dev->coalescing_active());
  EXPECT_EQ(dev->stats().admin_commands, 1u);
}

TEST_F(DeviceTest, TurningCoalescingOffReleasesWhatIsHeld) {
  make(1);
  dev->admin_set_coalescing(7, 100);
  run_until_us(20);
  submit(0, 2);
  run_until_us(40);
  EXPECT_TRUE(messages.empty());
  dev->admin_set_coalescing(0, 0);
  run_until_us(60);
  EXPECT_EQ(messages, (std::vector<Message>{{60000, 0}}));
  run_until_us(20000);
  EXPECT_EQ(messages.size(), 1u);  // the old timer is stale
}

TEST_F(DeviceTest, CoalescingDisabledOnOneVectorLeavesTheOthersCoalesced) {
  make(2);
  dev->admin_set_coalescing(7, 100);
  dev->admin_set_vector_coalescing_disabled(1, true);
  run_until_us(20);
  submit(0, 2);
  submit(1, 2);
  run_until_us(100);
  // Vector 1 sends per posting; vector 0 holds its two for the timer.
  EXPECT_EQ(messages, (std::vector<Message>{{30000, 1}, {30000, 1}}));
  EXPECT_EQ(dev->stats().coalesced, 2u);
  run_until_us(20000);
  EXPECT_EQ(messages.back(), (Message{(30 + 10000) * 1000, 0}));
}

// Issue 10 item 9: the aggregation time as one controller-wide timer. Vector 1's first
// held posting comes 50 us after vector 0's; both are released when the one timer that
// vector 0 started expires, not 100 us after each vector's own first posting.
TEST_F(DeviceTest, AControllerWideAggregationTimeReleasesEveryVectorAtOnce) {
  prof.coalescing_timer = CoalescingTimer::controller;
  make(2);
  dev->admin_set_coalescing(7, 1);  // 8 postings or 100 us
  run_until_us(20);
  submit(0, 1);  // posted at 30 us: starts the controller's timer
  run_until_us(70);
  submit(1, 1);  // posted at 80 us: the timer is already running
  run_until_us(1000);
  EXPECT_EQ(messages, (std::vector<Message>{{130000, 0}, {130000, 1}}));
}

TEST_F(DeviceTest, APerVectorAggregationTimeRunsFromEachVectorsFirstPosting) {
  make(2);  // the default: per vector
  dev->admin_set_coalescing(7, 1);
  run_until_us(20);
  submit(0, 1);
  run_until_us(70);
  submit(1, 1);
  run_until_us(1000);
  EXPECT_EQ(messages, (std::vector<Message>{{130000, 0}, {180000, 1}}));
}

// Issue 10 item 9: when the aggregation count restarts. With on_cq_doorbell, a CQ head
// doorbell (the host consumed the entries, e.g. by polling) clears what was held: no
// interrupt for entries already reaped, and the next threshold counts from zero.
TEST_F(DeviceTest, TheAggregationCountRestartsOnTheCqHeadDoorbellWhenTheProfileSaysSo) {
  prof.coalescing_count_restart = CoalescingRestart::on_cq_doorbell;
  make(1);
  dev->admin_set_coalescing(2, 100);  // 3 postings or 10 ms
  run_until_us(20);
  submit(0, 2);  // two postings held at 30 us
  run_until_us(40);
  dev->cq_doorbell(0, 2);  // the host reaped both
  submit(0, 2);            // two more at 50 us: the count is 2, not 4
  run_until_us(60);
  EXPECT_TRUE(messages.empty());
  submit(0, 1);  // the third since the doorbell sends
  run_until_us(80);
  EXPECT_EQ(messages, (std::vector<Message>{{70000, 0}}));
  run_until_us(20000);  // and no timer of the cleared aggregation fires later
  EXPECT_EQ(messages.size(), 1u);
}

TEST_F(DeviceTest, TheAggregationCountIgnoresTheCqHeadDoorbellByDefault) {
  make(1);
  dev->admin_set_coalescing(2, 100);
  run_until_us(20);
  submit(0, 2);
  run_until_us(40);
  dev->cq_doorbell(0, 2);
  submit(0, 1);  // the third held posting sends
  run_until_us(60);
  EXPECT_EQ(messages, (std::vector<Message>{{50000, 0}}));
}

// A doorbell with no fetch delay is seen at once, and an idle front end takes its turn
// there: the commands are in their units before any event runs, and the only events are
// the units' completions.
TEST_F(DeviceTest, ADoorbellWithNoFetchDelayStartsItsCommandsWithoutAnEventOfItsOwn) {
  make(1);
  submit(0, 3);
  EXPECT_EQ(eq.size(), 3u);  // three unit completions, no doorbell or front-end event
  EXPECT_EQ(dev->stats().waits, 3u);
  run_until_us(100);
  EXPECT_EQ(eq.dispatched(), 3u + 3u);  // the completions, then the postings
  EXPECT_EQ(messages, (std::vector<Message>{{10000, 0}, {10000, 0}, {10000, 0}}));
}

// With a fetch delay the doorbell is an event; the idle front end takes its turn inside
// it (no event of its own), and one still busy with an earlier burst takes it later.
TEST_F(DeviceTest, AnIdleFrontEndTakesItsTurnInTheDoorbellEventAndABusyOneLater) {
  prof.sq_fetch = Duration::ns(500);
  prof.iops_max = 1e6;  // 1 us per command
  make(2);
  submit(0, 2);
  EXPECT_EQ(eq.size(), 1u);  // the doorbell, seen 500 ns from now
  EXPECT_EQ(dev->stats().waits, 0u);
  eq.run_until(Time::zero() + Duration::ns(500));
  EXPECT_EQ(eq.dispatched(), 1u);  // the doorbell alone started both commands
  EXPECT_EQ(dev->stats().waits, 2u);
  submit(1, 1);  // seen at 1000 ns, when the front end is busy until 2500 ns
  eq.run_until(Time::zero() + Duration::ns(1000));
  EXPECT_EQ(dev->stats().waits, 2u);
  eq.run_until(Time::zero() + Duration::ns(2500));
  EXPECT_EQ(dev->stats().waits, 3u);
  run_until_us(100);
  ASSERT_EQ(messages.size(), 3u);
  // Each command: the front end's 1 us, then 10 us in its unit.
  EXPECT_EQ(messages[0], (Message{1500 + 10000, 0}));
  EXPECT_EQ(messages[1], (Message{2500 + 10000, 0}));
  EXPECT_EQ(messages[2], (Message{3500 + 10000, 1}));
}

// Transfers of one size reuse its time; another size gets its own.
TEST_F(DeviceTest, TheLinkTimesEachTransferByItsOwnSize) {
  prof.link_bytes_per_s = 4096e6;  // 4 KiB per us
  make(1);
  requests[0].bytes = 4096;
  requests[1].bytes = 8192;
  requests[2].bytes = 4096;
  submit(0, 3);
  run_until_us(100);
  ASSERT_EQ(messages.size(), 3u);
  // All three leave their units at 10 us and cross the link in turn: 1, 2 and 1 us.
  EXPECT_EQ(messages[0].at_ns, 11000);
  EXPECT_EQ(messages[1].at_ns, 13000);
  EXPECT_EQ(messages[2].at_ns, 14000);
  EXPECT_EQ(dev->stats().link_busy_ps, 4'000'000);
}

// Busy figures count only what falls inside the measured window: a service or transfer
// that straddles its end counts its part inside, so no share of the window passes 1.
TEST_F(DeviceTest, BusyTimeCountsOnlyTheWindow) {
  prof.link_bytes_per_s = 4096e6;  // 4 KiB per us
  make(1);
  dev->measure_window(Time::zero() + Duration::us(5), Time::zero() + Duration::us(12));
  requests[0].bytes = 4096;
  requests[1].bytes = 8192;
  submit(0, 2);
  run_until_us(100);
  ASSERT_EQ(messages.size(), 2u);
  const DeviceStats s = dev->stats();
  // Both units serve 0..10 us: 5 us of each inside [5, 12).
  EXPECT_EQ(s.unit_busy, Duration::us(10));
  // The link is busy 10..11 and 11..13 us: 2 of its 3 us inside.
  EXPECT_EQ(s.link_busy_ps, 2'000'000);
}

// The front end's share is its fetch time (1/iops_max a command) inside the window, not
// the completions counted there (those of commands fetched before it start would count).
TEST_F(DeviceTest, FrontEndBusyTimeCountsOnlyTheWindow) {
  prof.iops_max = 1e6;  // one fetch per us
  make(1);
  dev->measure_window(Time::zero(), Time::zero() + Duration::ns(2500));
  submit(0, 5);
  run_until_us(100);
  EXPECT_EQ(dev->stats().front_end_busy_ps, 2'500'000);
}

}  // namespace
}  // namespace nvmesim
