#include "hw/driver_restore.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace nvmesim::hw {

PreparedRestore::PreparedRestore(const std::vector<SysfsWrite>& writes) {
  if (writes.size() > kMaxWrites) throw std::logic_error("PreparedRestore: too many writes");
  for (const auto& w : writes) {
    Slot& s = slots_[count_++];
    if (w.path.size() >= sizeof s.path || w.value.size() >= sizeof s.value)
      throw std::logic_error("PreparedRestore: path or value too long: " + w.path);
    std::memcpy(s.path, w.path.c_str(), w.path.size() + 1);
    std::memcpy(s.value, w.value.data(), w.value.size());
    s.len = w.value.size();
    // May fail now (a driver not loaded yet): fire() tries again by path.
    s.fd = ::open(s.path, O_WRONLY | O_CLOEXEC);
  }
}

PreparedRestore::~PreparedRestore() {
  for (size_t i = 0; i < count_; ++i)
    if (slots_[i].fd >= 0) ::close(slots_[i].fd);
}

bool PreparedRestore::fire() noexcept {
  if (fired_.exchange(true)) return false;
  for (size_t i = 0; i < count_; ++i) {
    Slot& s = slots_[i];
    int fd = s.fd >= 0 ? s.fd : ::open(s.path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) continue;
    [[maybe_unused]] ssize_t n = ::write(fd, s.value, s.len);
    ::close(fd);
    s.fd = -1;
  }
  return true;
}

}  // namespace nvmesim::hw
