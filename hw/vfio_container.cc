#include "hw/vfio_container.h"

#include <fcntl.h>
#include <linux/vfio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "hw/vfio_release.h"

namespace nvmesim::hw {

namespace {

constexpr size_t kPage = 4096;
// Start IOVAs well above 0 so a stray zero address faults in the IOMMU, and far below
// the x86 MSI window at 0xfee00000.
constexpr uint64_t kIovaBase = 0x10000000;

std::runtime_error sys_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

}  // namespace

VfioContainer::VfioContainer() : next_iova_(kIovaBase) {
  fd_ = UniqueFd(::open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC));
  if (!fd_)
    throw sys_error("cannot open /dev/vfio/vfio (is the vfio module loaded? are you root?)");
  if (ioctl(fd_.get(), VFIO_GET_API_VERSION) != VFIO_API_VERSION)
    throw std::runtime_error("unexpected VFIO API version");
  if (ioctl(fd_.get(), VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU) != 1)
    throw std::runtime_error(
        "VFIO type1 IOMMU not available: load vfio_iommu_type1 and boot with the IOMMU on "
        "(intel_iommu=on or amd_iommu=on)");
  vfio_release::add_fd(fd_.get(), vfio_release::Kind::container);
}

VfioContainer::~VfioContainer() {
  vfio_release::remove_fd(fd_.get());
  for (auto& [iova, span] : live_) unmap_and_free(span);
}

void VfioContainer::unmap_and_free(const DmaSpan& span) {
  vfio_iommu_type1_dma_unmap unmap{};
  unmap.argsz = sizeof unmap;
  unmap.iova = span.iova;
  unmap.size = span.size;
  ioctl(fd_.get(), VFIO_IOMMU_UNMAP_DMA, &unmap);
  munmap(span.host, span.size);
}

void VfioContainer::set_iommu_type1() {
  if (iommu_set_) return;
  if (ioctl(fd_.get(), VFIO_SET_IOMMU, VFIO_TYPE1_IOMMU) != 0)
    throw sys_error("VFIO_SET_IOMMU(type1) failed (busybox modprobe skips softdeps: "
                    "is vfio_iommu_type1 loaded?)");
  iommu_set_ = true;
}

DmaSpan VfioContainer::allocate(size_t bytes) {
  size_t size = (bytes + kPage - 1) / kPage * kPage;
  void* host = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                    -1, 0);
  if (host == MAP_FAILED) throw sys_error("mmap of DMA memory failed");
  std::lock_guard lock(mu_);
  vfio_iommu_type1_dma_map map{};
  map.argsz = sizeof map;
  map.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
  map.vaddr = reinterpret_cast<uint64_t>(host);
  map.iova = next_iova_;
  map.size = size;
  if (ioctl(fd_.get(), VFIO_IOMMU_MAP_DMA, &map) != 0) {
    int e = errno;
    munmap(host, size);
    errno = e;
    throw sys_error("VFIO_IOMMU_MAP_DMA of " + std::to_string(size) + " bytes failed");
  }
  DmaSpan span{host, next_iova_, size};
  next_iova_ += size;
  live_[span.iova] = span;
  return span;
}

void VfioContainer::release(const DmaSpan& span) {
  std::lock_guard lock(mu_);
  if (!live_.erase(span.iova)) return;
  unmap_and_free(span);
}

}  // namespace nvmesim::hw
