// Global operator new/delete for sim_benchmark that count live bytes (counted_heap.h).
// Each block carries its request size in a header of one max_align_t, so that delete of any
// form (sized or not) takes back exactly what new counted. Over-aligned forms keep the size
// just before the aligned pointer and the malloc pointer before that.
#include "bench/counted_heap.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

std::atomic<std::size_t> g_live{0};
constexpr std::size_t kHeader = alignof(std::max_align_t);

void* counted_new(std::size_t n) {
  void* raw = std::malloc(n + kHeader);
  if (raw == nullptr) return nullptr;
  std::memcpy(raw, &n, sizeof n);
  g_live.fetch_add(n, std::memory_order_relaxed);
  return static_cast<char*>(raw) + kHeader;
}
void counted_delete(void* p) noexcept {
  if (p == nullptr) return;
  char* raw = static_cast<char*>(p) - kHeader;
  std::size_t n = 0;
  std::memcpy(&n, raw, sizeof n);
  g_live.fetch_sub(n, std::memory_order_relaxed);
  std::free(raw);
}

// Over-aligned: [malloc'd ... | raw pointer | size | aligned block]
void* counted_new_aligned(std::size_t n, std::align_val_t al) {
  const std::size_t a = static_cast<std::size_t>(al);
  const std::size_t meta = 2 * sizeof(void*);
  char* raw = static_cast<char*>(std::malloc(n + a + meta));
  if (raw == nullptr) return nullptr;
  const std::size_t addr = reinterpret_cast<std::size_t>(raw) + meta;
  char* p = reinterpret_cast<char*>((addr + a - 1) / a * a);
  std::memcpy(p - sizeof(void*), &n, sizeof n);
  std::memcpy(p - 2 * sizeof(void*), &raw, sizeof raw);
  g_live.fetch_add(n, std::memory_order_relaxed);
  return p;
}
void counted_delete_aligned(void* p) noexcept {
  if (p == nullptr) return;
  char* c = static_cast<char*>(p);
  std::size_t n = 0;
  char* raw = nullptr;
  std::memcpy(&n, c - sizeof(void*), sizeof n);
  std::memcpy(&raw, c - 2 * sizeof(void*), sizeof raw);
  g_live.fetch_sub(n, std::memory_order_relaxed);
  std::free(raw);
}

void* or_throw(void* p) {
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

std::size_t nvmesim::bench::counted_heap_bytes() { return g_live.load(std::memory_order_relaxed); }

void* operator new(std::size_t n) { return or_throw(counted_new(n)); }
void* operator new[](std::size_t n) { return or_throw(counted_new(n)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_new(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_new(n); }
void operator delete(void* p) noexcept { counted_delete(p); }
void operator delete[](void* p) noexcept { counted_delete(p); }
void operator delete(void* p, std::size_t) noexcept { counted_delete(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_delete(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_delete(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_delete(p); }

void* operator new(std::size_t n, std::align_val_t a) { return or_throw(counted_new_aligned(n, a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return or_throw(counted_new_aligned(n, a)); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_new_aligned(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_new_aligned(n, a);
}
void operator delete(void* p, std::align_val_t) noexcept { counted_delete_aligned(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_delete_aligned(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_delete_aligned(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_delete_aligned(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { counted_delete_aligned(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { counted_delete_aligned(p); }
