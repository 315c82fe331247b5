// Host memory of one simulated I/O queue pair: the SQ and CQ entry arrays that the host
// writes and the device reads (SQ), or the device writes and the host reads (CQ). Only
// what the model needs of an entry is kept: the command id and, for CQEs, the phase tag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "models/system/zero_pages.h"

namespace nvmesim {

struct CqEntry {
  uint32_t cid = 0;
  uint32_t sqhd = 0;  // SQ head pointer: SQ slots up to here may be reused
  uint8_t phase = 0;  // zeroed memory: the host's first phase (1) does not match
};
static_assert(std::is_trivially_copyable_v<CqEntry>, "entries start as zero bytes");

// The rings start as zero bytes. A scenario has a queue pair per drive and core (512 in
// the default scenario, 16 of them used), so a system places each drive's rings in one
// block of ZeroPages: the rings of queues that never see a command are never touched.
struct QueueMemory {
  // Bytes of one queue pair's rings at `depth`, each ring on its own cache lines with a
  // guard line after it (ZeroPages::guard: a ring index past the end is reported under
  // AddressSanitizer, as calloc's redzones did when each ring had its own allocation).
  static constexpr std::size_t bytes(uint32_t depth) { return sq_span(depth) + cq_span(depth); }
  // Rings of its own.
  explicit QueueMemory(uint32_t depth) : own_(bytes(depth)) { place(depth, own_.data()); }
  // Rings in `block`: bytes(depth) of zero bytes that outlive this.
  QueueMemory(uint32_t depth, std::byte* block) { place(depth, block); }

  uint32_t* sq = nullptr;  // command ids
  CqEntry* cq = nullptr;

 private:
  static constexpr std::size_t kGuard = 64;
  static constexpr std::size_t lines(std::size_t n) { return (n + 63) / 64 * 64; }
  static constexpr std::size_t sq_span(uint32_t depth) { return lines(std::size_t{depth} * sizeof(uint32_t)) + kGuard; }
  static constexpr std::size_t cq_span(uint32_t depth) { return lines(std::size_t{depth} * sizeof(CqEntry)) + kGuard; }
  void place(uint32_t depth, std::byte* block) {
    sq = reinterpret_cast<uint32_t*>(block);
    cq = reinterpret_cast<CqEntry*>(block + sq_span(depth));
    const std::size_t sq_bytes = std::size_t{depth} * sizeof(uint32_t), cq_bytes = std::size_t{depth} * sizeof(CqEntry);
    ZeroPages::guard(block + sq_bytes, sq_span(depth) - sq_bytes);
    ZeroPages::guard(block + sq_span(depth) + cq_bytes, cq_span(depth) - cq_bytes);
  }
  ZeroPages own_;
};

}  // namespace nvmesim
