#include "models/system/zero_pages.h"

#include <sys/mman.h>

#include <new>
#include <utility>

#include "sim/address_sanitizer.h"
#ifdef NVMESIM_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace nvmesim {

void ZeroPages::guard([[maybe_unused]] std::byte* p, [[maybe_unused]] std::size_t n) {
#ifdef NVMESIM_ASAN
  ASAN_POISON_MEMORY_REGION(p, n);
#endif
}

ZeroPages::ZeroPages(std::size_t bytes) : size_(bytes ? bytes : 1) {
  void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<std::byte*>(p);
}

ZeroPages::ZeroPages(ZeroPages&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

ZeroPages& ZeroPages::operator=(ZeroPages&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

ZeroPages::~ZeroPages() { release(); }

void ZeroPages::release() {
#ifdef NVMESIM_ASAN
  // The guards' poison stays in the shadow memory, where a later mapping at this address
  // would find it.
  if (data_) ASAN_UNPOISON_MEMORY_REGION(data_, size_);
#endif
  if (data_) munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace nvmesim
