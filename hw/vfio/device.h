// One PCI function opened through VFIO: its IOMMU group joined to a container, the
// device fd, BAR0 mapped, bus mastering turned on. Refuses, with a message saying what
// to do, a device that is not bound to vfio-pci.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "hw/base/unique_fd.h"
#include "hw/vfio/container.h"
#include "hw/vfio/mmio.h"

namespace nvmesim::hw {

class VfioDevice {
 public:
  VfioDevice(VfioContainer& container, const std::string& bdf);
  ~VfioDevice();
  VfioDevice(const VfioDevice&) = delete;
  VfioDevice& operator=(const VfioDevice&) = delete;

  const std::string& bdf() const { return bdf_; }
  int fd() const { return device_.get(); }
  Mmio& bar0() { return *bar0_; }
  uint32_t msix_vectors() const { return msix_count_; }

  uint32_t config_read(uint32_t offset, uint32_t bytes);
  void config_write(uint32_t offset, uint32_t bytes, uint32_t value);

 private:
  std::string bdf_;
  UniqueFd group_;
  UniqueFd device_;
  uint64_t config_offset_ = 0;
  void* bar0_map_ = nullptr;
  uint64_t bar0_size_ = 0;
  std::unique_ptr<BarMmio> bar0_;
  uint32_t msix_count_ = 0;
  uint16_t saved_command_ = 0;
};

}  // namespace nvmesim::hw
