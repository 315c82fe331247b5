#include "hw/vfio/irqs.h"

#include <linux/vfio.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace nvmesim::hw {

void VfioIrqs::bind(uint32_t start, const std::vector<int32_t>& fds) {
  std::vector<uint8_t> buf(sizeof(vfio_irq_set) + fds.size() * sizeof(int32_t));
  auto* set = reinterpret_cast<vfio_irq_set*>(buf.data());
  set->argsz = uint32_t(buf.size());
  set->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
  set->index = VFIO_PCI_MSIX_IRQ_INDEX;
  set->start = start;
  set->count = uint32_t(fds.size());
  std::memcpy(set->data, fds.data(), fds.size() * sizeof(int32_t));
  if (ioctl(device_fd_, VFIO_DEVICE_SET_IRQS, set) != 0)
    throw std::runtime_error(std::string("VFIO_DEVICE_SET_IRQS (MSI-X) failed: ") + std::strerror(errno));
}

void VfioIrqs::enable(uint32_t count) {
  if (count > available_)
    throw std::runtime_error("device offers " + std::to_string(available_) + " MSI-X vectors, " +
                             std::to_string(count) + " needed");
  // One SET_IRQS for all vectors: the first call fixes how many the host allocates.
  std::vector<int32_t> raw;
  for (uint32_t i = 0; i < count; ++i) {
    int e = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (e < 0) throw std::runtime_error("eventfd failed");
    fds_.emplace_back(e);
    raw.push_back(e);
  }
  bind(0, raw);
}

void VfioIrqs::disable() {
  if (fds_.empty()) return;
  vfio_irq_set set{};
  set.argsz = sizeof set;
  set.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER;
  set.index = VFIO_PCI_MSIX_IRQ_INDEX;
  set.start = 0;
  set.count = 0;
  ioctl(device_fd_, VFIO_DEVICE_SET_IRQS, &set);
  fds_.clear();
}

uint64_t VfioIrqs::wait(uint32_t vector, Duration timeout) {
  pollfd p{fd(vector), POLLIN, 0};
  int ms = int(timeout.count_ns() / 1000000);
  if (poll(&p, 1, ms) <= 0) return 0;
  uint64_t n = 0;
  if (read(p.fd, &n, sizeof n) != sizeof n) return 0;
  return n;
}

void VfioIrqs::set_delivery(uint32_t vector, bool on) {
  // Detaching the trigger (fd -1) frees the host IRQ, which masks the MSI-X entry at
  // the device; re-attaching requests it again and unmasks, delivering a pending message.
  bind(vector, {on ? int32_t(fd(vector)) : int32_t(-1)});
}

void VfioIrqs::replay(uint32_t vector) {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(fd(vector), &one, sizeof one);
}

bool VfioIrqs::probe_action_mask(int* err) {
  vfio_irq_set set{};
  set.argsz = sizeof set;
  set.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_MASK;
  set.index = VFIO_PCI_MSIX_IRQ_INDEX;
  set.start = 0;
  set.count = 1;
  if (ioctl(device_fd_, VFIO_DEVICE_SET_IRQS, &set) == 0) {
    set.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK;
    ioctl(device_fd_, VFIO_DEVICE_SET_IRQS, &set);
    *err = 0;
    return true;
  }
  *err = errno;
  return false;
}

}  // namespace nvmesim::hw
