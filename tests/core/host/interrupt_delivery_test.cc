// Interrupt delivery on the host platform (issue 28): a root complex's remapping unit
// drains the earlier DMA writes once for the messages waiting when it starts and then sends
// them one at a time; the socket delivers one interrupt at a time; a drive's later writes
// wait behind its message (PCIe ordering); posted MSIs notify a CPU once for a burst. The
// parts on their own, a device with them, and runs that show each law.
#include "models/host/interrupt_delivery.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <variant>
#include <vector>

#include "models/device/device.h"
#include "models/system/partition.h"
#include "models/host/platform_placement.h"
#include "models/host/topology.h"
#include "tests/core/sim_helpers.h"

namespace nvmesim {
namespace {

Time at_ns(int64_t ns) { return Time::zero() + Duration::ns(ns); }

TEST(RemappingUnit, OneDrainServesTheMessagesWaitingWhenItStarts) {
  RemappingUnit u(Duration::ns(100), Duration::ns(50), Duration::ns(20));
  EXPECT_EQ(u.send(at_ns(1000)), at_ns(1150));  // idle: a drain of its own, then the message
  EXPECT_EQ(u.send(at_ns(1000)), at_ns(1200));  // waiting when that drain started: no drain
  EXPECT_EQ(u.send(at_ns(1010)), at_ns(1350));  // came during it: the next drain, after 1200
  EXPECT_EQ(u.send(at_ns(1100)), at_ns(1400));  // waiting when the next drain starts (1200)
  EXPECT_EQ(u.send(at_ns(5000)), at_ns(5150));  // idle again
  EXPECT_EQ(u.busy_ns(), 3 * 100 + 5 * 50);
  EXPECT_EQ(u.messages(), 5u);
  EXPECT_EQ(u.post(at_ns(5100)), at_ns(5170));  // posted: no drain, one at a time behind it
  EXPECT_EQ(u.post(at_ns(5100)), at_ns(5190));
  EXPECT_EQ(u.posted(), 2u);
}

TEST(SocketInterrupts, OneAtATimeInTheOrderTheyAreSent) {
  SocketInterrupts s(Duration::ns(100));
  EXPECT_EQ(s.take(at_ns(1000), at_ns(900)), at_ns(1000));
  EXPECT_EQ(s.take(at_ns(1050), at_ns(900)), at_ns(1100));  // behind the first
  // Asked for later but sent earlier than a promised slot, it takes the free time before.
  EXPECT_EQ(s.take(at_ns(1500), at_ns(950)), at_ns(1500));
  EXPECT_EQ(s.take(at_ns(1250), at_ns(950)), at_ns(1250));
  EXPECT_EQ(s.take(at_ns(1260), at_ns(950)), at_ns(1350));  // the room left before 1500
  EXPECT_EQ(s.take(at_ns(1300), at_ns(950)), at_ns(1600));  // none left: after the last
  EXPECT_EQ(s.interrupts(), 6u);
  EXPECT_EQ(s.busy_ns(), 600);
}

// Two sockets, two drives per root complex: drives alternate sockets and fill each
// socket's root complexes in order; a scenario's own placement comes first.
TEST(PlatformPlacement, DrivesSpreadOverSocketsAndFillRootComplexes) {
  Scenario sc;
  sc.host.cores = 8;
  sc.host.platform.sockets = 2;
  sc.host.platform.drives_per_root_complex = 2;
  sc.drives.resize(7);
  sc.drives[6].socket = 0;
  sc.drives[6].root_complex = 5;
  const PlatformPlacement p(sc);
  const std::vector<uint32_t> socket = {0, 1, 0, 1, 0, 1, 0}, rc = {0, 0, 0, 0, 1, 1, 5};
  for (uint32_t d = 0; d < 7; ++d) {
    EXPECT_EQ(p.drive(d).socket, socket[d]) << d;
    EXPECT_EQ(p.drive(d).root_complex, rc[d]) << d;
  }
  EXPECT_EQ(p.units(), 6u + 2u);  // socket 0: root complexes 0-5; socket 1: 0-1
  EXPECT_EQ(p.drive(1).unit, 6u);
  EXPECT_EQ(p.unit_socket(7), 1u);
  EXPECT_EQ(p.core_socket(3), 0u);
  EXPECT_EQ(p.core_socket(4), 1u);
}

// One queue, commands of 10 us, a remapping unit of 1 us per message (no drain) and a
// socket of 0.5 us per interrupt.
struct OrderedDeviceTest : ::testing::Test {
  static constexpr uint32_t kDepth = 64;
  sim::EventQueue eq;
  std::vector<Request> requests = std::vector<Request>(64);
  std::vector<RequestTimes> times = std::vector<RequestTimes>(64);  // the CQEs' posting times
  std::vector<int64_t> message_ns;
  QueueMemory mem{kDepth};
  nvme::SqCursor sq{.depth = kDepth};
  Scenario sc;
  std::unique_ptr<PlatformPlacement> placement;
  std::unique_ptr<InterruptDelivery> delivery;
  std::unique_ptr<Device> dev;

  static void on_message(void* self, uint32_t, uint32_t, Duration after, bool) {
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
    sc.drives.resize(1);
    sc.host.platform.remapping = InterruptRemapping::remappable;
    sc.host.platform.message = Duration::us(1);
    sc.host.platform.socket_message = Duration::ns(500);
    placement = std::make_unique<PlatformPlacement>(sc);
    delivery = std::make_unique<InterruptDelivery>(sc.host.platform, *placement);
    delivery->bind(&eq);
    dev = std::make_unique<Device>(eq, p, 0, 1, MsixSink{this, &OrderedDeviceTest::on_message}, requests);
    dev->add_queue(&mem, kDepth, 0, true);
    dev->record_command_times(times.data());
    if (ordered) dev->order_posted_writes(delivery.get());
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

// Every CQE is a message; the port's messages reach the unit one at a time (the next
// when the one before has left), and the CQEs written behind a message land as it leaves.
TEST_F(OrderedDeviceTest, CqesWaitBehindTheMessagesAheadOfThemInThePort) {
  make(true);
  submit(3);  // all three units finish at 10 us
  run_until_ns(10000);
  // The first CQE is written, then its message, sent at 11 us; the second CQE is written
  // behind that message (it lands at 11 us), the third behind the second's message, which
  // reaches the root complex only when the first has left.
  EXPECT_EQ(dev->cq_pending(0, 0), 1u);
  EXPECT_EQ(times[1].posted, at_ns(11000));
  EXPECT_EQ(message_ns, (std::vector<int64_t>{11500}));  // sent at 11 us, at the APIC 0.5 us later
  EXPECT_FALSE(dev->post_due(0, at_ns(10999)));  // a reaper cannot see the second earlier
  run_until_ns(11000);
  EXPECT_EQ(dev->cq_pending(0, 0), 2u);
  EXPECT_TRUE(dev->cqe_landed(0));  // landed, though no event wrote it
  EXPECT_EQ(times[2].posted, at_ns(12000));
  run_until_ns(12000);
  EXPECT_EQ(dev->cq_pending(0, 0), 3u);
  EXPECT_EQ(message_ns, (std::vector<int64_t>{11500, 12500, 13500}));
  EXPECT_EQ(dev->stats().msix_messages, 3u);
  EXPECT_EQ(dev->stats().commands, 3u);
  EXPECT_EQ(dev->stats().cqe_writes_stalled, 2u);
  EXPECT_EQ(dev->stats().remapping_busy_ns, 3000);
  EXPECT_EQ(dev->stats().socket_busy_ns, 1500);
}

TEST_F(OrderedDeviceTest, AReaperCannotTakeACqeBehindAMessageNotYetSent) {
  make(true);
  submit(3);
  run_until_ns(10000);
  EXPECT_TRUE(dev->post_due(0, at_ns(11000)));   // the second, behind the first message
  EXPECT_FALSE(dev->post_due(0, at_ns(50000)));  // the third: its message is not sent yet
  run_until_ns(12000);
  EXPECT_TRUE(dev->post_due(0, at_ns(12000)));
  EXPECT_EQ(dev->cq_pending(0, 0), 3u);
}

TEST_F(OrderedDeviceTest, AReaperSeesAHeldCqeOnceTheMessageAheadHasLeft) {
  make(true);
  submit(2);
  run_until_ns(10500);
  EXPECT_EQ(dev->cq_pending(0, 0), 1u);
  EXPECT_FALSE(dev->post_due(0, at_ns(10999)));
  EXPECT_TRUE(dev->post_due(0, at_ns(11000)));  // its reaper's loop reaches 11 us
  EXPECT_EQ(dev->cq_pending(0, 0), 2u);
  run_until_ns(20000);
  EXPECT_EQ(dev->cq_pending(0, 0), 2u);  // not written twice
  EXPECT_EQ(dev->stats().commands, 2u);
}

// Ideal drives (one job each, 32 in flight, 10 us per command: 3.2M/s a drive) on a host
// whose only cost is the platform's.
nlohmann::json drives_on_a_platform(uint32_t drives, uint32_t per_root_complex) {
  nlohmann::json doc = testing::ideal_scenario();
  doc["host"]["cores"] = 16;
  doc["host"]["platform"] = {{"sockets", 1}, {"drives_per_root_complex", per_root_complex},
                             {"interrupt_remapping", "remappable"}, {"drain_ns", 200}, {"message_ns", 100},
                             {"socket_message_ns", 0}};
  doc["drives"][0]["profile"]["units"] = 64;
  nlohmann::json drive = doc["drives"][0];
  doc["drives"] = nlohmann::json::array();
  doc["jobs"] = nlohmann::json::array();
  for (uint32_t d = 0; d < drives; ++d) {
    const std::string n = std::to_string(d);  // (GCC 12 warns wrongly on "d" + a string here)
    drive["name"] = std::string("d").append(n);
    doc["drives"].push_back(drive);
    doc["jobs"].push_back({{"name", std::string("j").append(n)}, {"iodepth", 32}, {"cpus_allowed", n},
                           {"drives", {std::string("d").append(n)}}});
  }
  doc["duration_us"] = 10000;
  doc["warmup_us"] = 2000;
  return doc;
}

double iops(const nlohmann::json& r) { return r["aggregate"]["iops"].get<double>(); }

// k drives behind one remapping unit, each with a message always waiting: a drain for the
// k messages, then k messages, so each drive sends 1 / (drain + k * message) messages per
// second -- and every CQE is a message, so that is its IOPS: with 200 + k * 100 ns, 3.33M
// for one drive (more than it can do: 3.2M), 2.5M each for two, 1.67M each for four. Drives
// behind root complexes of their own do not share one.
TEST(InterruptDeliveryRun, DrivesBehindOneRemappingUnitShareItsDrainsAndMessages) {
  const double one = iops(testing::run(drives_on_a_platform(1, 4)));
  const double two = iops(testing::run(drives_on_a_platform(2, 4)));
  const nlohmann::json four_r = testing::run(drives_on_a_platform(4, 4));
  const double apart = iops(testing::run(drives_on_a_platform(4, 1)));
  EXPECT_GT(one, 3.0e6);  // the unit's own 300 ns between a drive's messages costs a little
  EXPECT_LE(one, 3.2e6 * 1.001);
  EXPECT_LE(two, 2 * 2.5e6 * 1.001);
  EXPECT_GT(two, 2 * 2.5e6 * 0.9);
  EXPECT_LE(iops(four_r), 4 * 1.667e6 * 1.001);
  EXPECT_GT(iops(four_r), 4 * 1.667e6 * 0.9);
  EXPECT_EQ(four_r["limits"]["bound_by"], "remapping_unit");
  EXPECT_GT(apart, 4 * 3.0e6);
  for (const auto& d : four_r["drives"]) {  // every CQE was a message, behind the one before
    EXPECT_GE(d["device"]["msix_messages"].get<double>(), d["device"]["commands"].get<double>() * 0.99);
    EXPECT_EQ(d["device"]["platform"]["socket"], 0);
    EXPECT_EQ(d["device"]["platform"]["root_complex"], 0);
  }
}

// The socket delivers one interrupt at a time: drives on root complexes of their own
// share its rate (here 400 ns: 2.5M interrupts a second for the four of them).
TEST(InterruptDeliveryRun, TheSocketsDeliveryBoundsTheDrivesOfAllItsRootComplexes) {
  nlohmann::json doc = drives_on_a_platform(4, 1);
  doc["host"]["platform"]["socket_message_ns"] = 400;
  const nlohmann::json r = testing::run(doc);
  EXPECT_LE(iops(r), 2.5e6 * 1.001);
  EXPECT_GT(iops(r), 2.5e6 * 0.9);
  EXPECT_EQ(r["limits"]["bound_by"], "socket_interrupts");
  // On two sockets, two drives each: each socket carries its own.
  doc["host"]["platform"]["sockets"] = 2;
  EXPECT_GT(iops(testing::run(doc)), 2 * 2.5e6 * 0.9);
}

// Posted MSIs (intremap=posted_msi): each message is only written into its CPU's
// descriptor, and a CPU is notified once while a notification is outstanding, so where
// remappable interrupts are bound by the unit, posted ones are not, and fewer
// notifications than messages reach the cores.
TEST(InterruptDeliveryRun, PostedMsisNotifyACpuOnceForABurstAndLeaveTheUnitFree) {
  nlohmann::json doc = drives_on_a_platform(4, 4);
  doc["host"]["platform"]["post_ns"] = 20;
  doc["host"]["irq_entry_ns"] = 300;  // notifications take a while on the core
  doc["host"]["posted_demux_ns"] = 50;
  const nlohmann::json remappable = testing::run(doc);
  doc["intremap"] = "posted_msi";
  const nlohmann::json posted = testing::run(doc);
  EXPECT_EQ(posted["scenario"]["host"]["platform"]["interrupt_remapping"], "posted");
  EXPECT_GT(iops(posted), iops(remappable) * 1.3);
  uint64_t messages = 0, notifications = 0;
  for (const auto& d : posted["drives"]) {
    messages += d["device"]["msix_messages"].get<uint64_t>();
    notifications += d["device"]["platform"]["posted_notifications"].get<uint64_t>();
  }
  EXPECT_GT(notifications, 0u);
  EXPECT_LT(notifications, messages);
}

TEST(InterruptDeliveryRun, TheDrivesOfASocketAreOnePartition) {
  nlohmann::json doc = drives_on_a_platform(4, 1);
  doc["host"]["platform"]["sockets"] = 2;
  const LoadedScenario ls = testing::load_or_fail(doc);
  const Topology t = Topology::of(ls.scenario);
  EXPECT_EQ(Partitioning::of(ls.scenario, t).parts().size(), 2u);  // drives 0, 2 and 1, 3
  doc["host"]["platform"]["interrupt_remapping"] = "off";
  const LoadedScenario off = testing::load_or_fail(doc);
  EXPECT_EQ(Partitioning::of(off.scenario, Topology::of(off.scenario)).parts().size(), 4u);
}

TEST(InterruptDeliveryRun, BadPlatformInputIsAnErrorNamingItsPath) {
  struct Case {
    const char* what;
    std::function<void(nlohmann::json&)> edit;
    const char* path;
  };
  const std::vector<Case> cases = {
      {"unknown mode", [](nlohmann::json& d) { d["host"]["platform"]["interrupt_remapping"] = "fast"; },
       "/host/platform/interrupt_remapping"},
      {"more sockets than cores", [](nlohmann::json& d) { d["host"]["platform"]["sockets"] = 17; }, "/host/platform/sockets"},
      {"negative drain", [](nlohmann::json& d) { d["host"]["platform"]["drain_ns"] = -1; }, "/host/platform/drain_ns"},
      {"socket out of range", [](nlohmann::json& d) { d["drives"][0]["socket"] = 1; }, "/drives/0/socket"},
      {"unknown key", [](nlohmann::json& d) { d["host"]["platform"]["lines"] = 2; }, "/host/platform/lines"},
      {"unknown intremap", [](nlohmann::json& d) { d["intremap"] = "on"; }, "/intremap"},
      {"intremap without a platform", [](nlohmann::json& d) { d["host"].erase("platform"); d["intremap"] = "posted_msi"; },
       "/intremap"},
      {"placed without a platform", [](nlohmann::json& d) { d["host"].erase("platform"); d["drives"][0]["root_complex"] = 0; },
       "/drives/0/root_complex"},
      {"a measurement and a policy change at once",
       [](nlohmann::json& d) { d["published"] = {{"per_drive_iops", 1e6}, {"policy", "rate"}}; },
       "/published/per_drive_iops"},
  };
  for (const Case& c : cases) {
    nlohmann::json doc = drives_on_a_platform(1, 4);
    c.edit(doc);
    auto loaded = load_scenario_json(doc, LoadOptions{});
    ASSERT_TRUE(std::holds_alternative<InputError>(loaded)) << c.what;
    EXPECT_EQ(std::get<InputError>(loaded).path, c.path) << c.what << ": " << std::get<InputError>(loaded).str();
  }
}

}  // namespace
}  // namespace nvmesim
