// In-use matching by device number on given file contents: the cases of issue 8 (a
// root filesystem listed as /dev/root, a mount through another node, swap, an opener).
#include "hw/block_usage.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

#include <map>

namespace nvmesim::hw {
namespace {

const std::vector<BlockDevice> kDevs = {{"nvme0n1", makedev(259, 0)}, {"nvme0n1p1", makedev(259, 1)},
                                        {"nvme0n1p2", makedev(259, 2)}};

// A fake /dev: the paths that are block devices, with their numbers.
BlockNumberOf fake_dev(std::map<std::string, dev_t> nodes) {
  return [nodes](const std::string& path) -> std::optional<dev_t> {
    auto it = nodes.find(path);
    if (it == nodes.end()) return std::nullopt;
    return it->second;
  };
}

std::vector<std::string> strs(const std::vector<BlockUse>& uses) {
  std::vector<std::string> out;
  for (const auto& u : uses) out.push_back(u.str());
  return out;
}

TEST(BlockUsage, ParsesMajorMinor) {
  EXPECT_EQ(parse_major_minor("259:3"), makedev(259, 3));
  EXPECT_FALSE(parse_major_minor("259"));
  EXPECT_FALSE(parse_major_minor("-1:3"));
  EXPECT_FALSE(parse_major_minor("259:x"));
}

TEST(BlockUsage, RootListedAsDevRootIsFoundByNumber) {
  const std::string mountinfo =
      "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/root rw\n"
      "23 22 0:21 / /proc rw,nosuid - proc proc rw\n";
  // /dev/root does not exist as a node: only field 3 can tell.
  EXPECT_EQ(strs(mounts_using(kDevs, mountinfo, fake_dev({}))),
            std::vector<std::string>{"/dev/nvme0n1p2 is mounted on /"});
}

TEST(BlockUsage, MountThroughAnotherNodeIsFoundBySourceNumber) {
  // btrfs reports an anonymous device number in field 3; its source is a symlink-like
  // other name of the partition.
  const std::string mountinfo =
      "40 22 0:45 / /data rw - btrfs /dev/disk/by-label/data rw,space_cache=v2\n"
      "41 22 0:46 / /mnt/with\\040blank rw - ext4 /dev/mapper/other rw\n";
  auto number_of = fake_dev({{"/dev/disk/by-label/data", makedev(259, 1)}, {"/dev/mapper/other", makedev(253, 0)}});
  EXPECT_EQ(strs(mounts_using(kDevs, mountinfo, number_of)),
            std::vector<std::string>{"/dev/nvme0n1p1 is mounted on /data"});
}

TEST(BlockUsage, OptionalFieldsAndBlanksInMountpoints) {
  const std::string mountinfo = "50 22 259:0 / /mnt/my\\040disk rw,noatime shared:5 master:2 - xfs /dev/nvme0n1 rw\n";
  EXPECT_EQ(strs(mounts_using(kDevs, mountinfo, fake_dev({}))),
            std::vector<std::string>{"/dev/nvme0n1 is mounted on /mnt/my disk"});
}

TEST(BlockUsage, UnrelatedMountsAreNotUses) {
  const std::string mountinfo =
      "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
      "60 22 259:7 / /other rw - ext4 /dev/nvme1n1 rw\n"  // another controller's namespace
      "61 22 0:50 / /tmp rw - tmpfs tmpfs rw\n"
      "garbage\n";
  EXPECT_TRUE(mounts_using(kDevs, mountinfo, fake_dev({{"/dev/sda1", makedev(8, 1)}})).empty());
}

TEST(BlockUsage, SwapOnAPartitionByNumber) {
  const std::string swaps =
      "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
      "/dev/dm-1                               partition\t1000444\t\t0\t\t-2\n"
      "/swapfile                               file\t\t1048572\t\t0\t\t-3\n"
      "/dev/disk/by-partlabel/swap             partition\t1000444\t\t0\t\t-4\n";
  auto number_of = fake_dev({{"/dev/dm-1", makedev(253, 1)}, {"/dev/disk/by-partlabel/swap", makedev(259, 2)}});
  EXPECT_EQ(strs(swaps_using(kDevs, swaps, number_of)), std::vector<std::string>{"/dev/nvme0n1p2 is used as swap"});
}

TEST(BlockUsage, NoSwapNoUse) {
  EXPECT_TRUE(swaps_using(kDevs, "Filename\tType\tSize\tUsed\tPriority\n", fake_dev({})).empty());
  EXPECT_TRUE(swaps_using(kDevs, "", fake_dev({})).empty());
}

TEST(BlockUsage, OpenersOfTheRawDevice) {
  std::vector<OpenBlockFile> open = {{1234, "dd", makedev(259, 0)}, {99, "udevd", makedev(8, 0)}};
  EXPECT_EQ(strs(openers_of(kDevs, open)), std::vector<std::string>{"/dev/nvme0n1 is open in process 1234 (dd)"});
}

}  // namespace
}  // namespace nvmesim::hw
