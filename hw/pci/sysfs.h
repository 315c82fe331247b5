// What the driver asks of sysfs about a PCI function: its driver, its IOMMU group, its
// class, its block devices. Binding to vfio-pci and back: hw/pci/vfio_binding.h.
#pragma once

#include <string>
#include <vector>

namespace nvmesim::hw {

// "0000:01:00.0" form; accepts "01:00.0" and adds the domain. Throws on garbage.
std::string normalize_bdf(const std::string& bdf);
// Whether the PCI function is there (/sys/bus/pci/devices/BDF): the CLI's check of the
// address it was given, before anything else asks sysfs about it.
bool pci_device_exists(const std::string& bdf);
// Name of the bound driver, "" when none. Throws if the device does not exist.
std::string current_driver(const std::string& bdf);
int iommu_group(const std::string& bdf);
// Throws Refusal (hw/base/refusal.h) naming the current driver and the command to run when the device
// is not bound to vfio-pci.
void require_vfio_pci(const std::string& bdf);

// Block devices (e.g. "nvme0n1", "nvme0n1p2") of the function while it is on the
// kernel's nvme driver. Whether they are in use: hw/pci/block_usage_probe.h.
std::vector<std::string> block_devices(const std::string& bdf);

// Where bind saves the original driver: $NVMESIM_HW_STATE_DIR or /run/nvmesim-hw.
std::string state_dir();
// The PCI class code ("0x010802"), for refusing what is not an NVMe controller.
std::string pci_class(const std::string& bdf);

}  // namespace nvmesim::hw
