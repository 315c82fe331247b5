// One NVMe controller: fetches SQEs after doorbells with round-robin arbitration, runs
// commands through a command-processing front end (the IOPS ceiling), N parallel units
// (service-time distributions) and the PCIe link (bandwidth ceiling per direction),
// posts CQEs, and signals each queue's MSI-X vector: one message per posting unless the
// vector is masked (pending bit set, delivered on unmask) or coalescing holds it back.
// With interrupt remapping on the host platform (PostedWriteOrder), its messages hold up
// its later posted writes (CQEs, read data) until they leave the root complex.
//
// One class, its methods in one file per concern (the private sections below say which):
//   device.cc             building it: the queues, the measured window
//   device_controller.cc  the controller: doorbells, fetch and arbitration, the front end,
//                         admin commands
//   device_service.cc     the service: units or flash targets, the link, service-time
//                         draws, completion rounds, a recorded trace's times (replay)
//   device_cq_posting.cc  CQ posting: scheduled posts, CQEs held behind a message, post_due
//   device_signalling.cc  interrupt signalling towards the platform: its messages in PCIe
//                         order, the CQEs waiting behind those not yet sent
// Not separate classes: every concern works on the same per-queue state (a CQE carries
// the controller's SQ head, a sent message releases the CQ posting's waiting CQEs, read
// data take the link in the port's order) and the events are bound to the Device, so
// classes of their own would each need a pointer back to it: a load more per event on
// the hot path, or calls through function pointers.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/device/device_command.h"
#include "models/device/device_stats.h"
#include "models/device/flash_writes.h"
#include "models/device/msix_vectors.h"
#include "models/device/pcie_link.h"
#include "models/device/picoseconds.h"
#include "models/device/posted_write_order.h"
#include "models/device/replayed_service.h"
#include "models/device/service_time.h"
#include "models/host/queue_memory.h"
#include "models/system/ring_fifo.h"
#include "models/workload/request.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "vocab/nvme_ring.h"
#include "vocab/profiles.h"

namespace nvmesim {

// Where the device's MSI-X writes go (the System routes them to a core): a message that
// leaves the device's side now, or one that reaches its core's APIC `after` from now
// (remappable, through the platform), or one posted into its CPU's descriptor `after`
// from now (posted MSIs).
struct MsixSink {
  void* self = nullptr;
  void (*message)(void* self, uint32_t drive, uint32_t vector, Duration after, bool posted) = nullptr;
};

class Device {
 public:
  Device(sim::EventQueue& eq, const DeviceProfile& profile, uint32_t index, uint64_t seed,
         MsixSink sink, std::vector<Request>& requests);
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // Creates I/O queue pair `qid` (0-based among I/O queues) signalling `vector`.
  uint32_t add_queue(QueueMemory* mem, uint32_t depth, uint32_t vector, bool interrupts_enabled);
  // --replay-service: each command's posting time comes from `s` instead of the units,
  // the service distributions and the link (null: the model's own). Before the run.
  void use_replayed_service(const ReplayedService* s) { replayed_ = s; }
  // The device's MSI-X messages go through the platform's interrupt delivery in PCIe
  // order with its other posted writes. Before the run.
  void order_posted_writes(InterruptDelivery* delivery) { order_.emplace(delivery, index_); }
  // A posted notification for one of its vectors went through the platform.
  void count_notification(const InterruptTimes& t) {
    ++stats_.posted_notifications;
    count_delivery(t);
  }
  // Where each command's unit end and CQE posting time go (RequestTimes, indexed by
  // command id), which only a command trace and a replay read; null: nowhere. A replay
  // (use_replayed_service) needs them, and its commands' doorbells and trace rows. Before
  // the run; off unless given.
  void record_command_times(RequestTimes* times) { times_ = times; }
  // The busy figures (DeviceStats) count only what falls inside [from, to). Before the run;
  // unset, everything counts.
  void measure_window(Time from, Time to);

  // MMIO writes by the host (effective when written; the fetch latency is modelled).
  void sq_doorbell(uint32_t qid, uint32_t tail);
  void cq_doorbell(uint32_t qid, uint32_t head);

  // A host reaper that reaches time `by` in its loop sees the next CQE of `qid` if the
  // device posts it by then: write it now (its MSI-X message still goes at its own time).
  // Returns whether a CQE was written.
  bool post_due(uint32_t qid, Time by);

  // When the next CQE of `qid` that the device has scheduled lands in host memory (its
  // next posting, or a write held behind a message), or Time::never() if none is scheduled.
  // A command whose unit is not done yet posts no earlier than cqe_post_delay() (a read:
  // read_post_delay()) after its unit's end.
  Time next_scheduled_cqe(uint32_t qid) const;
  Duration cqe_post_delay() const { return profile_.cqe_post; }
  // For a read of `bytes`, whose data crosses the link before its CQE: no less than that.
  Duration read_post_delay(uint32_t bytes) const;

  // MSI-X table mask bit of a vector; unmasking with the pending bit set sends it.
  void set_vector_masked(uint32_t vector, bool masked) { vectors_.set_masked(vector, masked); }
  bool vector_pending(uint32_t vector) const { return vectors_.pending(vector); }

  // Set Features 08h / 09h through the admin queue: effective after the admin command
  // completes. thr is 0's based; thr == 0 or time_100us == 0 turns coalescing off.
  void admin_set_coalescing(uint32_t thr, uint32_t time_100us);
  void admin_set_vector_coalescing_disabled(uint32_t vector, bool disabled);
  bool coalescing_active() const { return vectors_.coalescing_active(); }

  // CQEs posted and not yet consumed, given the host's CQ head.
  uint32_t cq_pending(uint32_t qid, uint32_t host_head) const {
    return nvme::ring_distance(host_head, queues_[qid].cq.tail, queues_[qid].depth) + landed_held(queues_[qid]);
  }
  // Whether a CQE of `qid` is in host memory that the ring does not show yet (a held write
  // that has landed): a reaper finds it through post_due.
  bool cqe_landed(uint32_t qid) const {
    const SqState& q = queues_[qid];
    return !q.held.empty() && landed(q.held.front());
  }
  DeviceStats stats() const {
    DeviceStats s = stats_;
    for (const SqState& q : queues_) s.commands += landed_held(q);
    s.link_busy_ps = link_.busy_ps();
    s.msix_held = vectors_.held();
    s.coalesced = vectors_.coalesced();
    if (writes_) s.writes = writes_->stats();
    return s;
  }
  uint32_t index() const { return index_; }

 private:
  // One I/O queue pair as the controller sees it: the SQ it fetches (controller), the CQ
  // it posts to (CQ posting) and the vector it signals (signalling).
  struct SqState {
    QueueMemory* mem = nullptr;
    uint32_t depth = 0;
    uint32_t fetch_head = 0;  // next SQE the device fetches
    uint32_t tail = 0;        // last tail seen through the doorbell
    nvme::CqProducer cq;
    uint32_t vector = 0;
    bool in_rr = false;       // on the arbitration list
    // CQE postings scheduled and not yet written, in posting order: (time, cid).
    RingFifo<std::pair<Time, uint32_t>> posts;
    // CQEs written behind a message whose time at the root complex is known, in order
    // (their times do not decrease). Each lands in host memory at `at` by an event kept
    // back (`seq`): the write is acted out when someone looks (write_landed_held,
    // landed_held).
    struct HeldCqe {
      Time at;
      uint64_t seq;
      uint32_t cid;
    };
    RingFifo<HeldCqe> held;
    uint32_t waiting = 0;  // its CQEs in waiting_cqes_ (behind a message not yet sent)
  };

  // ---- The controller (device_controller.cc).
  static void on_doorbell_seen(void* self, uint64_t arg);
  static void on_front_end(void* self, uint64_t arg);
  // One arbitration turn of the front end (it is free now).
  void front_end_turn();
  void kick_front_end();
  static void on_admin_done(void* self, uint64_t arg);

  // ---- The service (device_service.cc).
  void start_unit(DeviceCommand c, Time at);
  static void on_unit_done(void* self, uint64_t arg);  // arg: DeviceCommand packed
  void start_on_target(DeviceCommand c, Time ready);  // profile.media_read > 0
  static void on_target_done(void* self, uint64_t arg);  // arg: DeviceCommand packed
  void start_write(DeviceCommand c, Time start);         // admitted to the write buffer
  static void on_flash_done(void* self, uint64_t arg);   // arg: FlashWrites' operation
  void finish_unit(DeviceCommand c);
  static void on_read_data(void* self, uint64_t command);
  void post_after_data(DeviceCommand c, Time done);  // the CQE, once its data is on the way
  Time round_post(Time post);  // profile.completion_round > 0
  // --replay-service: a recorded command's posting, and what the model knows ahead of it.
  void replay_post(uint32_t cid, Time fetched);
  static void on_replayed_known(void* self, uint64_t cid);
  static void on_replayed_unit_done(void* self, uint64_t command);
  // With the platform's ordering, a replayed command whose unit's end is recorded, or that
  // the trace saw unposted, ends without taking one of the model's units (replayed_unit_end,
  // on_replayed_unit_done) and goes on through the link, its posting and its message as the
  // model's own, so that the messages' order and timing, and the postings held behind them,
  // are the recording's; any other recorded command is posted at its recorded time.
  bool replays_unit(uint32_t cid) const {
    if (!replayed_ || !order_) return false;
    const RequestTimes& t = times_[cid];
    return !replayed_->recorded(t) || replayed_->known_ahead(t) >= Duration::zero();
  }
  Time replayed_unit_end(uint32_t cid, Time ready);
  // A replayed command whose posting is the recorded one, any wait behind a message included.
  bool replayed_posting(uint32_t cid) const {
    return replayed_ && replayed_->recorded(times_[cid]) && !replays_unit(cid);
  }

  // ---- CQ posting (device_cq_posting.cc).
  void schedule_post(uint32_t cid, uint32_t qid, Time post);
  static void on_cqe_post(void* self, uint64_t arg);   // arg: qid << 32 | cid
  void write_cqe(SqState& q, uint32_t cid);
  void hold_cqe(SqState& q, uint32_t cid, Time at);
  // Held writes that have landed by now, as their events would have written them: how many
  // (without writing), or written into the ring.
  uint32_t landed_held(const SqState& q) const;
  bool landed(const SqState::HeldCqe& h) const { return eq_->has_run(h.at, h.seq); }
  void write_landed_held(SqState& q);

  // ---- Interrupt signalling towards the platform (device_signalling.cc).
  // The message leaves the device now: to the host, or to the platform in PCIe order.
  static void emit(void* self, uint32_t vector);
  void emit_ordered(uint32_t vector);  // behind the port's messages at the root complex
  // The message at the head of the port reaches the root complex; a socket's messages of
  // one instant go to the platform by drive, then vector (SameTimeOrder,
  // InterruptDelivery::key).
  void present(uint32_t vector);
  static void on_platform_message(void* self, uint64_t vector);
  // The root complex took the message the port presented: its later writes land from
  // `leaves` on, and the next message of the port goes there then.
  void message_sent(Time leaves);
  static void on_port_turn(void* self, uint64_t);
  void next_turn(Time at, uint32_t vector);  // the port's next message reaches the root complex then
  static void on_port_message(void* self, uint64_t vector);
  // Messages of the port not yet sent (their times unknown): a CQE written now waits.
  bool unsent_messages() const { return (port_busy_ && !port_sent_) || !port_messages_.empty(); }
  // Its share of the platform's delivery for one message or notification (DeviceStats).
  void count_delivery(const InterruptTimes& t);

  // ---- State. Shared by the concerns: the clock, the profile, the requests, the queues,
  // the window and the counters.
  sim::EventQueue* eq_;
  // The per-command handlers, bound once (sim::EventQueue::bind).
  sim::EventQueue::Bound doorbell_seen_, front_end_, unit_done_, target_done_, cqe_post_, port_turn_, flash_done_;
  DeviceProfile profile_;
  uint32_t index_;
  sim::Rng rng_;
  MsixSink sink_;
  std::vector<Request>* requests_;  // what each command is (size, direction)
  RequestTimes* times_ = nullptr;    // record_command_times
  ServiceTime read_time_;
  ServiceTime write_time_;
  const ReplayedService* replayed_ = nullptr;
  std::vector<SqState> queues_;
  MsixVectors vectors_;
  // The controller's arbitration and front end.
  std::vector<uint32_t> rr_;   // queues with fetched-but-unprocessed SQEs, round robin
  std::size_t rr_pos_ = 0;
  bool fe_scheduled_ = false;
  int64_t fe_free_ps_ = 0;     // front end free from (picoseconds keep the ceiling exact)
  int64_t fe_gap_ps_ = 0;
  ps::MeasuredWindow window_;  // measure_window
  // The service: the link, the units and the flash targets.
  PcieLink link_;
  uint32_t units_busy_ = 0;
  RingFifo<std::pair<uint64_t, Time>> unit_wait_;  // (DeviceCommand packed, ready time)
  // With media_read: when each flash target is free, and the stream that picks a read's
  // target (its own, so that the service times drawn stay those of the pool).
  std::vector<Time> target_free_;
  sim::Rng target_rng_;
  std::optional<FlashWrites> writes_;  // the write path (profile.write_path()), on the targets
  Time round_at_;                      // completion rounds: the latest round taken
  uint32_t round_posts_ = 0;           // and the CQEs it posts
  // Signalling: none, or messages that hold up the other writes in PCIe order.
  std::optional<PostedWriteOrder> order_;
  // The port's messages in PCIe order: one at its root complex at a time (presented, then
  // sent), the later ones behind it, and the CQEs written behind messages not yet sent.
  bool port_busy_ = false;   // a message was presented and has not left
  bool port_sent_ = false;   // and the root complex has sent it (its leave time is known)
  RingFifo<uint32_t> port_messages_;
  uint64_t messages_emitted_ = 0, messages_sent_ = 0;
  struct WaitingCqe {
    uint32_t qid, cid;
    uint64_t behind;  // lands once this message (by number) is sent
  };
  RingFifo<WaitingCqe> waiting_cqes_;
  DeviceStats stats_;
};

// The CQE write is emitted behind the drive's messages still at its root complex: it lands
// at `at`, when they have left (or earlier through post_due, if a reaper gets there after
// that time).
// No event writes it: it lands at `at`, and whoever looks at the ring before a reaper takes
// it (post_due) writes it as that event would have (write_landed_held), or counts it
// (landed_held). The event's sequence number is still taken, so that every other event
// keeps its place among equal times.
// Defined here, not in device_cq_posting.cc: interrupt signalling calls it for every CQE
// released behind a sent message (message_sent), and across files it would be a call.
inline void Device::hold_cqe(SqState& q, uint32_t cid, Time at) {
  if (times_) times_[cid].posted = at;
  q.held.push_back(SqState::HeldCqe{at, eq_->take_seq(), cid});
}

}  // namespace nvmesim
