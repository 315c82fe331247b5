// A VFIO container with the type1 IOMMU: the address space the device's DMA goes
// through. Hands out DMA memory: anonymous pages mapped with VFIO_IOMMU_MAP_DMA at
// I/O virtual addresses it picks from a simple bump allocator.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

#include "hw/base/unique_fd.h"
#include "hw/hal/dma.h"

namespace nvmesim::hw {

class VfioContainer final : public DmaAllocator {
 public:
  VfioContainer();  // opens /dev/vfio/vfio and checks the API; throws with a clear message
  ~VfioContainer() override;
  int fd() const { return fd_.get(); }

  // Called once, after the first group joined the container (VFIO requires that order).
  void set_iommu_type1();

  DmaSpan allocate(size_t bytes) override;
  void release(const DmaSpan& span) override;

 private:
  // Removes the IOMMU mapping and frees the host memory (the caller holds mu_ or owns all).
  void unmap_and_free(const DmaSpan& span);

  UniqueFd fd_;
  bool iommu_set_ = false;
  std::mutex mu_;
  uint64_t next_iova_;
  std::map<uint64_t, DmaSpan> live_;  // by IOVA, to unmap whatever is left at the end
};

}  // namespace nvmesim::hw
