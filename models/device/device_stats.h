// What a simulated NVMe controller counts (Device::stats): its commands, its MSI-X
// messages and what held them back, its waits, and its busy time inside the measured
// window.
#pragma once

#include <cstdint>

#include "models/device/flash_writes.h"
#include "vocab/time.h"

namespace nvmesim {

struct DeviceStats {
  uint64_t commands = 0;          // completed (CQE posted)
  uint64_t msix_messages = 0;     // messages sent
  uint64_t msix_held = 0;         // postings that found the vector masked (pending set)
  uint64_t coalesced = 0;         // postings held back by coalescing
  uint64_t cqe_writes_stalled = 0;  // CQE writes that waited behind a message at the root complex
  Duration queue_wait;            // sum of waits for a free unit
  uint64_t waits = 0;             // commands that entered a unit
  uint64_t admin_commands = 0;
  uint64_t posted_notifications = 0;  // posted MSIs: notifications sent for its vectors
  // Busy time inside the measured window only (Device::measure_window): a fetch, service,
  // transfer or message that straddles a window edge counts only its part inside, so no
  // share of the window can pass 1 however long one of them is. operator- keeps these.
  int64_t front_end_busy_ps = 0;  // commands fetched, 1/iops_max each
  Duration unit_busy;             // service time
  int64_t link_busy_ps = 0;       // device->host plus host->device transfer time
  // Its share of the platform's interrupt delivery: time of its root complex's remapping
  // unit and of its socket's interrupt delivery (remappable interrupts, posted messages
  // and the posted notifications sent for its vectors).
  int64_t remapping_busy_ns = 0;
  int64_t socket_busy_ns = 0;
  FlashWriteStats writes;  // the write path (DeviceProfile::write_path), else all zero

  DeviceStats operator-(const DeviceStats& start) const {
    DeviceStats d = *this;
    d.commands -= start.commands;
    d.msix_messages -= start.msix_messages;
    d.msix_held -= start.msix_held;
    d.coalesced -= start.coalesced;
    d.cqe_writes_stalled -= start.cqe_writes_stalled;
    d.queue_wait -= start.queue_wait;
    d.waits -= start.waits;
    d.admin_commands -= start.admin_commands;
    d.posted_notifications -= start.posted_notifications;
    d.writes = writes - start.writes;
    return d;
  }
};

}  // namespace nvmesim
