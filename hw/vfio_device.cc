#include "hw/vfio_device.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/vfio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "hw/pci_sysfs.h"
#include "hw/vfio_release.h"

namespace nvmesim::hw {

namespace {

constexpr uint32_t kPciCommand = 0x04;
constexpr uint16_t kCommandMemory = 1u << 1;
constexpr uint16_t kCommandMaster = 1u << 2;
constexpr uint16_t kCommandIntxDisable = 1u << 10;

std::runtime_error sys_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

}  // namespace

VfioDevice::VfioDevice(VfioContainer& container, const std::string& bdf) : bdf_(bdf) {
  // Fails with the clear refusal when the device is on another driver or none.
  require_vfio_pci(bdf);
  int group = iommu_group(bdf);
  std::string path = "/dev/vfio/" + std::to_string(group);
  group_ = UniqueFd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!group_) throw sys_error("cannot open " + path + " (another process holds the device?)");

  vfio_group_status status{};
  status.argsz = sizeof status;
  if (ioctl(group_.get(), VFIO_GROUP_GET_STATUS, &status) != 0) throw sys_error("VFIO_GROUP_GET_STATUS");
  if (!(status.flags & VFIO_GROUP_FLAGS_VIABLE))
    throw std::runtime_error("IOMMU group " + std::to_string(group) +
                             " is not viable: every device in it must be bound to vfio-pci "
                             "(or to no driver); see /sys/kernel/iommu_groups/" +
                             std::to_string(group) + "/devices");
  int cfd = container.fd();
  if (ioctl(group_.get(), VFIO_GROUP_SET_CONTAINER, &cfd) != 0) throw sys_error("VFIO_GROUP_SET_CONTAINER");
  container.set_iommu_type1();

  int dfd = ioctl(group_.get(), VFIO_GROUP_GET_DEVICE_FD, bdf.c_str());
  if (dfd < 0) throw sys_error("VFIO_GROUP_GET_DEVICE_FD " + bdf);
  device_ = UniqueFd(dfd);

  vfio_region_info cfg{};
  cfg.argsz = sizeof cfg;
  cfg.index = VFIO_PCI_CONFIG_REGION_INDEX;
  if (ioctl(dfd, VFIO_DEVICE_GET_REGION_INFO, &cfg) != 0) throw sys_error("config region info");
  config_offset_ = cfg.offset;

  vfio_region_info bar{};
  bar.argsz = sizeof bar;
  bar.index = VFIO_PCI_BAR0_REGION_INDEX;
  if (ioctl(dfd, VFIO_DEVICE_GET_REGION_INFO, &bar) != 0) throw sys_error("BAR0 region info");
  if (!(bar.flags & VFIO_REGION_INFO_FLAG_MMAP) || bar.size < 0x2000)
    throw std::runtime_error("BAR0 of " + bdf + " cannot be mapped (size " + std::to_string(bar.size) + ")");
  bar0_size_ = bar.size;
  bar0_map_ = mmap(nullptr, bar0_size_, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, off_t(bar.offset));
  if (bar0_map_ == MAP_FAILED) {
    // The MSI-X table may sit in BAR0 and be excluded from mmap; the NVMe registers and
    // doorbells are in the first pages, so map just those.
    bar0_size_ = 0x2000;
    bar0_map_ = mmap(nullptr, bar0_size_, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, off_t(bar.offset));
    if (bar0_map_ == MAP_FAILED) {
      bar0_map_ = nullptr;
      throw sys_error("mmap of BAR0");
    }
  }
  bar0_ = std::make_unique<BarMmio>(static_cast<volatile uint8_t*>(bar0_map_), bar0_size_);

  vfio_irq_info irq{};
  irq.argsz = sizeof irq;
  irq.index = VFIO_PCI_MSIX_IRQ_INDEX;
  if (ioctl(dfd, VFIO_DEVICE_GET_IRQ_INFO, &irq) == 0) msix_count_ = irq.count;

  // vfio-pci leaves bus mastering off: without it the controller cannot DMA.
  saved_command_ = uint16_t(config_read(kPciCommand, 2));
  config_write(kPciCommand, 2, saved_command_ | kCommandMemory | kCommandMaster | kCommandIntxDisable);
  // Last, so a constructor that throws leaves nothing registered.
  vfio_release::add_fd(device_.get(), vfio_release::Kind::device);
  vfio_release::add_fd(group_.get(), vfio_release::Kind::group);
  vfio_release::add_mapping(bar0_map_, bar0_size_);
}

VfioDevice::~VfioDevice() {
  vfio_release::remove_mapping(bar0_map_);
  vfio_release::remove_fd(device_.get());
  vfio_release::remove_fd(group_.get());
  if (device_) {
    // No throwing here: the device is being released anyway.
    uint16_t cmd = saved_command_ & ~kCommandMaster;
    [[maybe_unused]] ssize_t n = pwrite(device_.get(), &cmd, 2, off_t(config_offset_ + kPciCommand));
  }
  bar0_.reset();
  if (bar0_map_) munmap(bar0_map_, bar0_size_);
  device_.reset();
  if (group_) ioctl(group_.get(), VFIO_GROUP_UNSET_CONTAINER);
}

uint32_t VfioDevice::config_read(uint32_t offset, uint32_t bytes) {
  uint32_t v = 0;
  if (pread(device_.get(), &v, bytes, off_t(config_offset_ + offset)) != ssize_t(bytes))
    throw sys_error("config space read");
  return v;
}

void VfioDevice::config_write(uint32_t offset, uint32_t bytes, uint32_t value) {
  if (pwrite(device_.get(), &value, bytes, off_t(config_offset_ + offset)) != ssize_t(bytes))
    throw sys_error("config space write");
}

}  // namespace nvmesim::hw
