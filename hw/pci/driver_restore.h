// Giving a device back to its kernel driver, prepared before it is needed: the sysfs
// files of hw/pci/rebind_plan.h's restore are opened and the values copied into fixed
// buffers up front, so fire() does only open(2) (for a file that could not be opened in
// advance), write(2) and close(2): safe in a fatal-signal handler and in a forked
// guardian, and the same code on the normal path.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

#include "hw/pci/rebind_plan.h"

namespace nvmesim::hw {

class PreparedRestore {
 public:
  explicit PreparedRestore(const std::vector<SysfsWrite>& writes);
  ~PreparedRestore();
  PreparedRestore(const PreparedRestore&) = delete;
  PreparedRestore& operator=(const PreparedRestore&) = delete;

  // Async-signal-safe. Does every write once, in order, ignoring failures (each is best
  // effort: a probe after a bind that took is a no-op). Later calls do nothing; true
  // when this call did the writes.
  bool fire() noexcept;

 private:
  static constexpr size_t kMaxWrites = 8;
  struct Slot {
    int fd = -1;
    char path[256] = {};
    char value[64] = {};
    size_t len = 0;
  };
  Slot slots_[kMaxWrites];
  size_t count_ = 0;
  std::atomic<bool> fired_{false};
};

}  // namespace nvmesim::hw
