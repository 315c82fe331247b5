// What the driver asks of sysfs about a PCI function: its driver, its IOMMU group,
// whether its block devices are in use; and the bind/unbind to vfio-pci that saves and
// restores the original driver.
#pragma once

#include <string>
#include <vector>

namespace nvmesim::hw {

// "0000:01:00.0" form; accepts "01:00.0" and adds the domain. Throws on garbage.
std::string normalize_bdf(const std::string& bdf);
// Name of the bound driver, "" when none. Throws if the device does not exist.
std::string current_driver(const std::string& bdf);
int iommu_group(const std::string& bdf);
// Throws Refusal (hw/refusal.h) naming the current driver and the command to run when the device
// is not bound to vfio-pci.
void require_vfio_pci(const std::string& bdf);

// Block devices (e.g. "nvme0n1", "nvme0n1p2") of the function, and those of them that
// are mounted, used as swap, or held by another device (dm, md).
std::vector<std::string> block_devices(const std::string& bdf);
std::vector<std::string> busy_block_devices(const std::string& bdf);

// Where bind saves the original driver: $NVMESIM_HW_STATE_DIR or /run/nvmesim-hw.
std::string state_dir();

// Binds to vfio-pci; saves the original driver. Refuses a device with busy block
// devices. Returns a message for the user; throws on refusal or failure.
std::string bind_vfio(const std::string& bdf);
// Returns the device to the driver saved by bind_vfio (or lets the kernel pick one).
std::string unbind_vfio(const std::string& bdf);

}  // namespace nvmesim::hw
