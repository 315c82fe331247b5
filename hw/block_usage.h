// Whether the block devices of a controller are in use, decided by device number
// (major:minor), never by name: /proc/mounts may say /dev/root for the root
// filesystem, a filesystem may be mounted through a symlink or another node, and a
// multi-device filesystem lists only one of its devices. The pure matching lives here,
// on file contents passed in, so it is tested without a device; block_usage_probe.h
// reads the real files.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nvmesim::hw {

struct BlockDevice {
  std::string name;  // "nvme0n1", "nvme0n1p2"
  dev_t dev = 0;     // its major:minor
};

// One reason a device may not be taken: "/dev/nvme0n1p1 is mounted on /mnt".
struct BlockUse {
  std::string device;  // "/dev/<name>"
  std::string how;     // "is mounted on /mnt", "is used as swap", ...
  std::string str() const { return device + " " + how; }
};

// The block device number a path names, or nothing when the path is not a block device
// (or does not exist). Injected so tests need no /dev.
using BlockNumberOf = std::function<std::optional<dev_t>(const std::string& path)>;

// "259:3" as in /sys/class/block/*/dev and field 3 of mountinfo.
std::optional<dev_t> parse_major_minor(const std::string& text);

// Mounts whose device number (field 3 of /proc/self/mountinfo) or whose mount source,
// resolved to a device number, is one of `devs`.
std::vector<BlockUse> mounts_using(const std::vector<BlockDevice>& devs, const std::string& mountinfo,
                                   const BlockNumberOf& number_of);

// Swap areas of /proc/swaps whose file is one of `devs` (by device number).
std::vector<BlockUse> swaps_using(const std::vector<BlockDevice>& devs, const std::string& swaps,
                                  const BlockNumberOf& number_of);

// A file descriptor some process holds, as the /proc/<pid>/fd scan found it.
struct OpenBlockFile {
  int pid = 0;
  std::string command;  // /proc/<pid>/comm
  dev_t dev = 0;        // st_rdev of the open block device
};
std::vector<BlockUse> openers_of(const std::vector<BlockDevice>& devs, const std::vector<OpenBlockFile>& open);

}  // namespace nvmesim::hw
