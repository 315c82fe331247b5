// What this process holds of a VFIO device, recorded where a fatal-signal handler can
// reach it. vfio-pci's unbind waits until every fd and mapping of the device is gone,
// and the kernel driver cannot bind while the group is owned by a container; so the
// handler must let go of them before it can give the device back. Release here is
// async-signal-safe: close(2) of the fds, and the BAR mapping replaced in place by
// anonymous memory (other threads still running then read zeros instead of faulting).
#pragma once

#include <cstddef>

namespace nvmesim::hw::vfio_release {

// Order of release: device fds first (vfio-pci resets the function on their last
// close), then groups (the container lets go of them), then containers.
enum class Kind { device = 0, group = 1, container = 2 };

// From one thread at a time; 16 slots each (a run holds one device).
void add_fd(int fd, Kind kind);
void remove_fd(int fd);
void add_mapping(void* addr, size_t len);
void remove_mapping(void* addr);

// Async-signal-safe; for a fatal-signal handler only (the normal path releases through
// the destructors).
void release_all() noexcept;

}  // namespace nvmesim::hw::vfio_release
