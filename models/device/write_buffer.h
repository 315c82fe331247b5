// A drive's DRAM/SLC write buffer: writes are acknowledged from it, so it holds the bytes
// of writes admitted and not yet programmed to flash. A write is admitted when its bytes
// fit (or the buffer is empty, so that a write larger than the buffer still goes); else it
// waits, in arrival order, until programs free the space. Bytes become `dirty` (ready to
// program) when their write is acknowledged.
#pragma once

#include <cstdint>

#include "models/system/ring_fifo.h"
#include "vocab/time.h"

namespace nvmesim {

class WriteBuffer {
 public:
  struct Waiting {
    uint64_t command;  // DeviceCommand packed
    Time ready;        // when it reached the buffer
    uint32_t bytes;
  };

  explicit WriteBuffer(uint64_t capacity_bytes) : capacity_(capacity_bytes) {}

  bool fits(uint32_t bytes) const { return held_ == 0 || held_ + bytes <= capacity_; }
  // Admitted now, or queued behind the writes already waiting (FIFO: no overtaking).
  bool admit(uint64_t command, Time ready, uint32_t bytes) {
    if (waiting_.empty() && fits(bytes)) {
      held_ += bytes;
      return true;
    }
    waiting_.push_back({command, ready, bytes});
    return false;
  }
  // The next waiting write, if it fits now (taken off the queue and admitted).
  bool admit_waiting(Waiting* out) {
    if (waiting_.empty() || !fits(waiting_.front().bytes)) return false;
    *out = waiting_.front();
    waiting_.pop_front();
    held_ += out->bytes;
    return true;
  }
  bool has_waiting() const { return !waiting_.empty(); }

  // Bytes already in the buffer when the run starts (its drawn initial state).
  void preload(uint64_t bytes, bool sequential) {
    held_ += bytes;
    acknowledged(bytes, sequential);
  }
  // A write's data is in the buffer: ready to program.
  void acknowledged(uint64_t bytes, bool sequential) {
    dirty_ += bytes;
    if (!sequential) random_dirty_ += bytes;
  }
  // Takes up to `max` dirty bytes for one program; *random: how many of them came from
  // random writes (the ones garbage collection amplifies).
  uint64_t take_dirty(uint64_t max, uint64_t* random) {
    const uint64_t n = dirty_ < max ? dirty_ : max;
    *random = random_dirty_ < n ? random_dirty_ : n;
    dirty_ -= n;
    random_dirty_ -= *random;
    return n;
  }
  // A program of `bytes` is on flash: their space is free.
  void programmed(uint64_t bytes) { held_ -= bytes; }

  uint64_t dirty() const { return dirty_; }
  uint64_t capacity() const { return capacity_; }

 private:
  uint64_t capacity_;
  uint64_t held_ = 0;          // admitted, not yet programmed
  uint64_t dirty_ = 0;         // acknowledged, not yet taken by a program
  uint64_t random_dirty_ = 0;  // of which from random writes
  RingFifo<Waiting> waiting_;
};

}  // namespace nvmesim
