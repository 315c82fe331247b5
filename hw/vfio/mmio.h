// Mmio over a BAR mapped from a VFIO device region: plain volatile loads and stores,
// which the CPU turns into uncached PCIe reads and posted writes.
#pragma once

#include <cstdint>

#include "hw/hal/mmio.h"

namespace nvmesim::hw {

class BarMmio final : public Mmio {
 public:
  BarMmio(volatile uint8_t* base, uint64_t size) : base_(base), size_(size) {}
  uint32_t read32(uint32_t off) override { return *reinterpret_cast<volatile uint32_t*>(base_ + off); }
  void write32(uint32_t off, uint32_t v) override { *reinterpret_cast<volatile uint32_t*>(base_ + off) = v; }
  // Two 32-bit halves, low first: 64-bit MMIO is not guaranteed atomic on every
  // platform, and NVMe allows the split access (nvme-pci's lo_hi_writeq does the same).
  uint64_t read64(uint32_t off) override {
    uint64_t lo = read32(off);
    uint64_t hi = read32(off + 4);
    return lo | (hi << 32);
  }
  void write64(uint32_t off, uint64_t v) override {
    write32(off, uint32_t(v));
    write32(off + 4, uint32_t(v >> 32));
  }
  uint64_t size() const { return size_; }

 private:
  volatile uint8_t* base_;
  uint64_t size_;
};

}  // namespace nvmesim::hw
