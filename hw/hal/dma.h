// Memory the device reads and writes: host mapping plus the I/O virtual address the
// device uses. VFIO maps it through the IOMMU (hw/vfio/container.h); unit tests hand out
// plain host memory with made-up addresses that their fake controller translates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace nvmesim::hw {

struct DmaSpan {
  void* host = nullptr;
  uint64_t iova = 0;
  size_t size = 0;
};

class DmaAllocator {
 public:
  virtual ~DmaAllocator() = default;
  // Zeroed, 4 KiB aligned (host and IOVA), IOVA-contiguous. Throws on failure.
  virtual DmaSpan allocate(size_t bytes) = 0;
  virtual void release(const DmaSpan& span) = 0;
};

// Owns one allocation; move-only.
class DmaBuffer {
 public:
  DmaBuffer() = default;
  DmaBuffer(DmaAllocator& alloc, size_t bytes) : alloc_(&alloc), span_(alloc.allocate(bytes)) {}
  DmaBuffer(DmaBuffer&& o) noexcept : alloc_(std::exchange(o.alloc_, nullptr)), span_(o.span_) {}
  DmaBuffer& operator=(DmaBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      alloc_ = std::exchange(o.alloc_, nullptr);
      span_ = o.span_;
    }
    return *this;
  }
  DmaBuffer(const DmaBuffer&) = delete;
  DmaBuffer& operator=(const DmaBuffer&) = delete;
  ~DmaBuffer() { reset(); }

  void reset() {
    if (alloc_) alloc_->release(span_);
    alloc_ = nullptr;
    span_ = {};
  }
  template <class T = uint8_t>
  T* host() const { return static_cast<T*>(span_.host); }
  uint64_t iova() const { return span_.iova; }
  size_t size() const { return span_.size; }

 private:
  DmaAllocator* alloc_ = nullptr;
  DmaSpan span_;
};

}  // namespace nvmesim::hw
