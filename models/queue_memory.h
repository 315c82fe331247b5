// Host memory of one simulated I/O queue pair: the SQ and CQ entry arrays that the host
// writes and the device reads (SQ), or the device writes and the host reads (CQ). Only
// what the model needs of an entry is kept: the command id and, for CQEs, the phase tag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace nvmesim {

struct CqEntry {
  uint32_t cid = 0;
  uint32_t sqhd = 0;  // SQ head pointer: SQ slots up to here may be reused
  uint8_t phase = 0;  // zeroed memory: the host's first phase (1) does not match
};

// A fixed array of entries that start as zero bytes, from calloc rather than a vector's
// value-initialisation: a scenario has a queue pair per drive and core (128 in the default
// scenario, 16 of them used), and the allocator hands out fresh zero pages for calloc
// without writing them, so the rings of queues that never see a command cost no memset
// and no page faults at start-up.
template <typename T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "entries must be valid as zero bytes");

 public:
  explicit ZeroedArray(std::size_t n) : data_(static_cast<T*>(std::calloc(n ? n : 1, sizeof(T)))), size_(n) {
    if (!data_) throw std::bad_alloc();
  }
  T& operator[](std::size_t i) { return data_.get()[i]; }
  const T& operator[](std::size_t i) const { return data_.get()[i]; }
  std::size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t size_;
};

struct QueueMemory {
  explicit QueueMemory(uint32_t depth) : sq(depth), cq(depth) {}
  ZeroedArray<uint32_t> sq;  // command ids
  ZeroedArray<CqEntry> cq;
};

}  // namespace nvmesim
