// Where the next I/O goes and whether it reads or writes, after fio's rw modes, over a
// range of logical blocks. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <random>

#include "vocab/scenario.h"

namespace nvmesim::hw {

class IoPattern {
 public:
  // blocks_per_io: bs / block size. The range must hold at least one I/O.
  IoPattern(RwMode rw, uint32_t rwmixread, uint64_t first_lba, uint64_t range_blocks,
            uint32_t blocks_per_io, uint64_t seed)
      : rw_(rw), mix_(rwmixread), first_(first_lba), slots_(range_blocks / blocks_per_io),
        per_io_(blocks_per_io), rng_(seed) {}


  // Returns the LBA of the next I/O and sets *is_write.
  uint64_t next(bool* is_write) {
    switch (rw_) {
      case RwMode::randread: *is_write = false; break;
      case RwMode::read: *is_write = false; break;
      case RwMode::randwrite: *is_write = true; break;
      case RwMode::write: *is_write = true; break;
      case RwMode::randrw:
      case RwMode::rw: *is_write = std::uniform_int_distribution<uint32_t>(0, 99)(rng_) >= mix_; break;
    }
    uint64_t slot;
    if (rw_ == RwMode::read || rw_ == RwMode::write || rw_ == RwMode::rw) {
      slot = seq_;
      seq_ = seq_ + 1 == slots_ ? 0 : seq_ + 1;
    } else {
      slot = std::uniform_int_distribution<uint64_t>(0, slots_ - 1)(rng_);
    }
    return first_ + slot * per_io_;
  }

 private:
  RwMode rw_;
  uint32_t mix_;
  uint64_t first_;
  uint64_t slots_;
  uint32_t per_io_;
  uint64_t seq_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace nvmesim::hw
