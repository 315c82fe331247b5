// Zero-filled memory straight from the kernel: an anonymous private mapping, whose pages
// are mapped in when first touched. What is never written costs neither a page fault nor
// a memset, however many runs a process makes -- calloc clears what it reuses from the
// heap, which made the rings of the queues no job uses most of a run's set-up.
#pragma once

#include <cstddef>

namespace nvmesim {

class ZeroPages {
 public:
  ZeroPages() = default;
  // `bytes` of zero bytes (at least one page); throws std::bad_alloc if the kernel refuses.
  explicit ZeroPages(std::size_t bytes);
  ZeroPages(ZeroPages&& other) noexcept;
  ZeroPages& operator=(ZeroPages&& other) noexcept;
  ZeroPages(const ZeroPages&) = delete;
  ZeroPages& operator=(const ZeroPages&) = delete;
  ~ZeroPages();

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }

  // Marks [p, p + n) inside the mapping as bytes nothing may touch: under AddressSanitizer
  // any access there is reported (the guard between two queues' rings, which sit side by
  // side in one mapping where calloc's redzones used to be). Nothing otherwise.
  static void guard(std::byte* p, std::size_t n);

 private:
  void release();
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace nvmesim
