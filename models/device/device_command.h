// What the device's per-command events need of their command, packed into the event's
// one word of argument so that the handlers (a unit done, a CQE posted) do not touch the
// command's Request: by then it is cold, and its first touch was the largest single cost
// of those handlers (docs/performance.md). The size travels in 512-byte sectors when it
// fits in 15 bits (up to 16 MiB - 512); otherwise `sectors` is 0 and the handler reads
// the Request.
#pragma once

#include <cstdint>

#include "models/workload/request.h"

namespace nvmesim {

struct DeviceCommand {
  uint32_t cid = 0;
  uint32_t qid = 0;      // I/O queue within the drive (< 2^16)
  bool write = false;
  uint32_t sectors = 0;  // bytes / 512, or 0: not carried

  static constexpr uint32_t kMaxSectors = (1u << 15) - 1;

  static DeviceCommand of(uint32_t cid, const Request& r) {
    const bool fits = r.bytes % 512 == 0 && r.bytes / 512 <= kMaxSectors;
    return DeviceCommand{cid, r.qid, r.write, fits ? r.bytes / 512 : 0};
  }
  constexpr uint64_t pack() const {
    return cid | (static_cast<uint64_t>(qid & 0xffff) << 32) | (static_cast<uint64_t>(write) << 48) |
           (static_cast<uint64_t>(sectors) << 49);
  }
  static constexpr DeviceCommand unpack(uint64_t a) {
    return DeviceCommand{static_cast<uint32_t>(a), static_cast<uint32_t>((a >> 32) & 0xffff), ((a >> 48) & 1) != 0,
                         static_cast<uint32_t>(a >> 49)};
  }
  // The command's size, from the argument or else its Request.
  uint32_t bytes(const Request& r) const { return sectors ? sectors * 512 : r.bytes; }
};

}  // namespace nvmesim
