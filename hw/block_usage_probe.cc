#include "hw/block_usage_probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "hw/pci_sysfs.h"

namespace nvmesim::hw {

namespace fs = std::filesystem;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<dev_t> block_number_of(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return std::nullopt;
  return st.st_rdev;
}

bool is_pid(const char* s) {
  if (!*s) return false;
  for (; *s; ++s)
    if (*s < '0' || *s > '9') return false;
  return true;
}

// Block devices open in any process but this one: /proc/<pid>/fd/* that stat as block
// devices. A process that exits meanwhile is simply skipped.
std::vector<OpenBlockFile> open_block_files() {
  std::vector<OpenBlockFile> open;
  const int self = getpid();
  DIR* proc = opendir("/proc");
  if (!proc) return open;
  while (dirent* p = readdir(proc)) {
    if (!is_pid(p->d_name) || std::atoi(p->d_name) == self) continue;
    std::string fd_dir = std::string("/proc/") + p->d_name + "/fd";
    DIR* fds = opendir(fd_dir.c_str());
    if (!fds) continue;
    while (dirent* f = readdir(fds)) {
      if (f->d_name[0] == '.') continue;
      if (auto d = block_number_of(fd_dir + "/" + f->d_name)) {
        std::string comm = read_all(std::string("/proc/") + p->d_name + "/comm");
        while (!comm.empty() && comm.back() == '\n') comm.pop_back();
        open.push_back({std::atoi(p->d_name), comm, *d});
      }
    }
    closedir(fds);
  }
  closedir(proc);
  return open;
}

// A node for `dev`: /dev/<name> when it is that device, else a private one made for the
// check (a system without devtmpfs, or a /dev/<name> that is something else).
std::string node_for(const BlockDevice& b, bool* made) {
  std::string dev_path = "/dev/" + b.name;
  if (auto d = block_number_of(dev_path); d && *d == b.dev) return dev_path;
  std::error_code ec;
  fs::create_directories(state_dir(), ec);
  std::string tmp = state_dir() + "/.probe-" + b.name;
  unlink(tmp.c_str());
  if (mknod(tmp.c_str(), S_IFBLK | 0600, b.dev) != 0) return "";
  *made = true;
  return tmp;
}

}  // namespace

BlockUsageReport probe_block_usage(const std::string& bdf) {
  BlockUsageReport r;
  std::vector<BlockDevice> devs;
  for (const auto& name : block_devices(bdf)) {
    std::string text = read_all("/sys/class/block/" + name + "/dev");
    while (!text.empty() && text.back() == '\n') text.pop_back();
    auto d = parse_major_minor(text);
    if (!d) {
      r.uses.push_back({"/dev/" + name, "has no device number in sysfs ('" + text + "')"});
      continue;
    }
    devs.push_back({name, *d});
    std::error_code ec;
    std::string holders;
    for (const auto& h : fs::directory_iterator("/sys/class/block/" + name + "/holders", ec))
      holders += (holders.empty() ? "" : ", ") + h.path().filename().string();
    if (!holders.empty()) r.uses.push_back({"/dev/" + name, "is held by " + holders});
  }
  for (auto& u : mounts_using(devs, read_all("/proc/self/mountinfo"), block_number_of)) r.uses.push_back(u);
  for (auto& u : swaps_using(devs, read_all("/proc/swaps"), block_number_of)) r.uses.push_back(u);
  for (auto& u : openers_of(devs, open_block_files())) r.uses.push_back(u);
  // Last: the kernel's own word on claims the files above cannot show (the other
  // devices of a multi-device filesystem, a claim by a driver).
  for (const auto& b : devs) {
    bool made = false;
    std::string node = node_for(b, &made);
    if (node.empty()) {
      r.uses.push_back({"/dev/" + b.name, std::string("could not be checked (mknod: ") + std::strerror(errno) + ")"});
      continue;
    }
    int fd = open(node.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC);
    int err = errno;
    if (made) unlink(node.c_str());
    if (fd >= 0) {
      r.claims.emplace_back(fd);
    } else if (err == EBUSY) {
      // Already explained by a mount or swap line: say it once.
      std::string dev = "/dev/" + b.name;
      if (std::none_of(r.uses.begin(), r.uses.end(), [&](const BlockUse& u) { return u.device == dev; }))
        r.uses.push_back({"/dev/" + b.name, "is claimed by the kernel (a filesystem, md, dm or swap)"});
    } else {
      r.uses.push_back({"/dev/" + b.name, std::string("cannot be opened exclusively (") + std::strerror(err) + ")"});
    }
  }
  return r;
}

}  // namespace nvmesim::hw
