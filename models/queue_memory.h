// Host memory of one simulated I/O queue pair: the SQ and CQ entry arrays that the host
// writes and the device reads (SQ), or the device writes and the host reads (CQ). Only
// what the model needs of an entry is kept: the command id and, for CQEs, the phase tag.
#pragma once

#include <cstdint>
#include <vector>

namespace nvmesim {

struct CqEntry {
  uint32_t cid = 0;
  uint32_t sqhd = 0;  // SQ head pointer: SQ slots up to here may be reused
  uint8_t phase = 0;  // zeroed memory: the host's first phase (1) does not match
};

struct QueueMemory {
  explicit QueueMemory(uint32_t depth) : sq(depth, 0), cq(depth) {}
  std::vector<uint32_t> sq;  // command ids
  std::vector<CqEntry> cq;
};

}  // namespace nvmesim
