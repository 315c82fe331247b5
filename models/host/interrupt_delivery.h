// The platform's interrupt delivery, shared by the drives behind it: one remapping unit per
// root complex and one interrupt delivery per socket (PlatformSpec; mechanism and sources
// in docs/calibration.md, "Interrupt delivery"). Plain arithmetic on times, no events: a
// device asks when its message leaves the root complex and when it reaches the core.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/host/platform_placement.h"
#include "models/system/same_time_order.h"
#include "vocab/profiles.h"
#include "vocab/time.h"

namespace nvmesim {

// A root complex's interrupt-remapping unit. Remappable interrupts are strongly ordered
// with DMA: before sending, the unit makes the earlier DMA writes visible (a drain), and
// one drain covers every message waiting when it starts; the messages then leave one at a
// time. A message that comes while a drain runs waits for the next one. Posted messages
// are written into the CPU's descriptor one at a time, with no drain (a memory write is
// ordered with the DMA writes before it like any other).
class RemappingUnit {
 public:
  RemappingUnit(Duration drain, Duration message, Duration post)
      : drain_(drain.count_ns()), message_(message.count_ns()), post_(post.count_ns()) {}

  // A remappable interrupt ready at `ready` is sent then.
  Time send(Time ready) {
    const int64_t r = ready.ns();
    if (r <= drain_start_) {
      busy_until_ += message_;  // the current batch's drain covers it
    } else {
      drain_start_ = std::max(r, busy_until_);
      busy_until_ = drain_start_ + drain_ + message_;
      busy_ns_ += drain_;
    }
    busy_ns_ += message_;
    ++messages_;
    return Time::from_ns(busy_until_);
  }
  // A posted message ready at `ready` is in the CPU's descriptor then.
  Time post(Time ready) {
    busy_until_ = std::max(ready.ns(), busy_until_) + post_;
    busy_ns_ += post_;
    ++posted_;
    return Time::from_ns(busy_until_);
  }
  int64_t busy_ns() const { return busy_ns_; }
  uint64_t messages() const { return messages_; }
  uint64_t posted() const { return posted_; }

 private:
  int64_t drain_, message_, post_;
  int64_t drain_start_ = -1;  // the latest batch's drain began then
  int64_t busy_until_ = 0;
  int64_t busy_ns_ = 0;
  uint64_t messages_ = 0, posted_ = 0;
};

// A socket's delivery of interrupts to its cores' local APICs: one at a time, in the
// order they are sent. Its root complexes ask a little ahead (a message is sent after its
// unit's drain), so it keeps the slots it has promised and gives each message the first
// free one from its sending time on.
class SocketInterrupts {
 public:
  explicit SocketInterrupts(Duration message) : message_(message.count_ns()) {}
  // An interrupt sent at `sent`, asked for at `now` (no later request is made for an
  // earlier time than `now`), is taken at the returned time (and at the APIC `message`
  // later).
  Time take(Time sent, Time now) {
    // Slots that ended by now are passed over by a head index (no erase per message); the
    // storage is emptied when all have ended and its passed part dropped now and then.
    const std::size_t n = slots_.size();
    std::size_t h = head_;
    while (h < n && slots_[h] + message_ <= now.ns()) ++h;
    int64_t t = sent.ns();
    std::size_t i = h;
    for (; i < n; ++i) {
      if (t + message_ <= slots_[i]) break;  // fits before the slot promised next
      t = std::max(t, slots_[i] + message_);
    }
    if (i == n) {  // the usual case: after every slot promised
      if (h == n) {
        slots_.clear();
        h = 0;
      } else if (h >= 32 && 2 * h >= n) {
        slots_.erase(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(h));
        h = 0;
      }
      slots_.push_back(t);
    } else {
      slots_.insert(slots_.begin() + static_cast<std::ptrdiff_t>(i), t);
    }
    head_ = h;
    busy_ns_ += message_;
    ++interrupts_;
    return Time::from_ns(t);
  }
  Duration message() const { return Duration::ns(message_); }
  int64_t busy_ns() const { return busy_ns_; }
  uint64_t interrupts() const { return interrupts_; }

 private:
  int64_t message_;
  std::vector<int64_t> slots_;  // starts of the slots promised, ascending, from head_ on
  std::size_t head_ = 0;
  int64_t busy_ns_ = 0;
  uint64_t interrupts_ = 0;
};

// Times of one interrupt on its way: when it left the root complex (the drive's later
// writes may pass from then on) and when it reaches the core's APIC.
struct InterruptTimes {
  Time leaves;
  Time at_apic;
  int64_t unit_ns = 0;    // the time it took of its remapping unit (a drain it started included)
  int64_t socket_ns = 0;  // and of its socket, from `leaves` on
  Time unit_done;         // the unit's part ended then (it began unit_ns before)
};

// The host's units and sockets, and each drive's way through them.
class InterruptDelivery {
 public:
  InterruptDelivery(const PlatformSpec& spec, const PlatformPlacement& placement) : spec_(spec) {
    for (uint32_t u = 0; u < placement.units(); ++u) units_.emplace_back(spec.drain, spec.message, spec.post);
    sockets_.assign(placement.sockets(), SocketInterrupts(spec.socket_message));
    arrivals_.resize(placement.sockets());
    for (uint32_t d = 0; d < placement.drive_count(); ++d) {
      drive_unit_.push_back(placement.drive(d).unit);
      drive_socket_.push_back(placement.drive(d).socket);
    }
  }
  InterruptDelivery(const InterruptDelivery&) = delete;  // devices hold its units' addresses

  bool posted() const { return spec_.remapping == InterruptRemapping::posted; }
  // A remappable interrupt of drive `d` ready at `ready`. It leaves its root complex when
  // the socket takes it (until then the drive's later writes wait behind it), but the
  // unit's next drain and sends do not wait for that: the socket's wait holds up the
  // drive, not the root complex's other drives.
  InterruptTimes interrupt(uint32_t d, Time ready) {
    RemappingUnit& u = units_[drive_unit_[d]];
    SocketInterrupts& s = sockets_[drive_socket_[d]];
    const int64_t unit_before = u.busy_ns();
    const Time sent = u.send(ready);
    const Time taken = s.take(sent, ready);
    return {taken, taken + s.message() + spec_.latency, u.busy_ns() - unit_before, s.message().count_ns(), sent};
  }
  // A posted notification for drive `d`'s vector, sent at `ready`: it goes to the core
  // through the socket's delivery only. The unit's drain and its ordered send are what
  // remappable interrupts pay (their ordering with DMA); the notification is the unit's
  // own message after a descriptor write that is ordered like any DMA write, and it holds
  // up none of the drive's writes.
  InterruptTimes notification(uint32_t d, Time ready) {
    SocketInterrupts& s = sockets_[drive_socket_[d]];
    const Time taken = s.take(ready, ready);
    return {taken, taken + s.message() + spec_.latency, 0, s.message().count_ns(), taken};
  }
  // A posted message of drive `d` ready at `ready`: when it is in the descriptor, and
  // its time of the unit.
  InterruptTimes post(uint32_t d, Time ready) {
    const Time at = units_[drive_unit_[d]].post(ready);
    return {at, at, spec_.post.count_ns(), 0, at};
  }
  // A request's key in its socket's instant: drive, then the device's messages, the host's
  // notifications (posted) and the device's read data, then vector or queue.
  static uint64_t key(uint32_t drive, uint64_t kind, uint32_t vector_or_queue) {
    return (uint64_t{drive} << 34) | (kind << 32) | vector_or_queue;
  }
  static constexpr uint64_t kMessage = 0, kNotification = 1, kData = 2;
  // The requests of one instant on drive `d`'s socket, in an order of their own.
  SameTimeOrder& arrivals(uint32_t d) { return arrivals_[drive_socket_[d]]; }
  void bind(sim::EventQueue* eq) {
    for (uint32_t s = 0; s < arrivals_.size(); ++s) arrivals_[s].bind(eq, s);
  }

 private:
  PlatformSpec spec_;
  std::vector<RemappingUnit> units_;
  std::vector<SocketInterrupts> sockets_;
  std::vector<SameTimeOrder> arrivals_;
  std::vector<uint32_t> drive_unit_, drive_socket_;
};

}  // namespace nvmesim
