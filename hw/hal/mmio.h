// Register access to the controller's BAR0: the lowest layer the NVMe code talks to.
// VFIO maps the real BAR (hw/vfio/mmio.h); unit tests put a fake controller behind it.
#pragma once

#include <cstdint>

namespace nvmesim::hw {

class Mmio {
 public:
  virtual ~Mmio() = default;
  virtual uint32_t read32(uint32_t offset) = 0;
  virtual void write32(uint32_t offset, uint32_t value) = 0;
  virtual uint64_t read64(uint32_t offset) = 0;
  virtual void write64(uint32_t offset, uint64_t value) = 0;
};

}  // namespace nvmesim::hw
