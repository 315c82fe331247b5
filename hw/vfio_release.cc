#include "hw/vfio_release.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>

namespace nvmesim::hw::vfio_release {

namespace {

// Fixed slots of atomics: a handler may run while a slot is being set, and may not
// allocate. A value of -1 / nullptr marks a free slot.
constexpr int kSlots = 16;
std::atomic<int> g_fd[kSlots];
std::atomic<int> g_kind[kSlots];
std::atomic<void*> g_map[kSlots];
std::atomic<size_t> g_map_len[kSlots];

struct InitSlots {
  InitSlots() {
    for (int i = 0; i < kSlots; ++i) {
      g_fd[i] = -1;
      g_map[i] = nullptr;
    }
  }
} g_init;

}  // namespace

// add/remove run on one thread at a time (the one opening the device); the slot's
// companion value is written before the slot is published, so a handler that sees the
// fd or address also sees its kind or length.
void add_fd(int fd, Kind kind) {
  for (int i = 0; i < kSlots; ++i)
    if (g_fd[i] == -1) {
      g_kind[i] = int(kind);
      g_fd[i] = fd;
      return;
    }
}

void remove_fd(int fd) {
  for (int i = 0; i < kSlots; ++i) {
    int expected = fd;
    if (g_fd[i].compare_exchange_strong(expected, -1)) return;
  }
}

void add_mapping(void* addr, size_t len) {
  for (int i = 0; i < kSlots; ++i)
    if (g_map[i] == nullptr) {
      g_map_len[i] = len;
      g_map[i] = addr;
      return;
    }
}

void remove_mapping(void* addr) {
  for (int i = 0; i < kSlots; ++i) {
    void* expected = addr;
    if (g_map[i].compare_exchange_strong(expected, nullptr)) return;
  }
}

void release_all() noexcept {
  for (int i = 0; i < kSlots; ++i)
    if (void* a = g_map[i].exchange(nullptr))
      mmap(a, g_map_len[i], PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  for (int kind = 0; kind <= int(Kind::container); ++kind)
    for (int i = 0; i < kSlots; ++i)
      if (g_kind[i] == kind)
        if (int fd = g_fd[i].exchange(-1); fd >= 0) close(fd);
}

}  // namespace nvmesim::hw::vfio_release
