// The in-use check of a controller's block devices on the real system, by device
// number (hw/pci/block_usage.h): sysfs holders (dm, md, bcache), /proc/self/mountinfo,
// /proc/swaps, every process's open fds, and finally an exclusive open of each block
// device, which the kernel refuses while a filesystem (any of a multi-device one), md,
// dm or swap has claimed it. Runs while the controller is still on its kernel driver.
#pragma once

#include <string>
#include <vector>

#include "hw/base/unique_fd.h"
#include "hw/pci/block_usage.h"

namespace nvmesim::hw {

struct BlockUsageReport {
  std::vector<BlockUse> uses;
  // The exclusive opens that succeeded: held by the caller until the driver is unbound,
  // so nothing can mount or claim a device between the check and the unbind.
  std::vector<UniqueFd> claims;
};

BlockUsageReport probe_block_usage(const std::string& bdf);

}  // namespace nvmesim::hw
