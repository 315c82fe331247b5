// Data buffers for a queue's commands, one per command id, in one DMA allocation; plus
// one PRP list page per id for transfers longer than two pages.
#pragma once

#include <cstdint>

#include "hw/hal/dma.h"
#include "hw/nvme/command.h"

namespace nvmesim::hw {

class IoBuffers {
 public:
  IoBuffers(DmaAllocator& dma, uint32_t slots, uint32_t bytes)
      : stride_((bytes + 4095) / 4096 * 4096),
        bytes_(bytes),
        data_(dma, size_t(slots) * stride_),
        prp_lists_(dma, bytes > 8192 ? size_t(slots) * 4096 : 4096) {}

  uint32_t bytes() const { return bytes_; }
  uint8_t* data(uint16_t cid) const { return data_.host() + size_t(cid) * stride_; }

  void fill_prps(nvme::Sqe& s, uint16_t cid) const {
    uint64_t* list = reinterpret_cast<uint64_t*>(prp_lists_.host() + size_t(cid) * 4096);
    uint64_t list_iova = prp_lists_.iova() + uint64_t(cid) * 4096;
    if (bytes_ <= 8192) {
      list = nullptr;
      list_iova = 0;
    }
    nvme::set_prps(s, data_.iova() + uint64_t(cid) * stride_, bytes_, list, list_iova);
  }

 private:
  uint32_t stride_;
  uint32_t bytes_;
  DmaBuffer data_;
  DmaBuffer prp_lists_;
};

}  // namespace nvmesim::hw
