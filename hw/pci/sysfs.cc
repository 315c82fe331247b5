#include "hw/pci/sysfs.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "hw/base/refusal.h"

namespace nvmesim::hw {

namespace fs = std::filesystem;

namespace {

const fs::path kDevices = "/sys/bus/pci/devices";

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

std::string link_name(const fs::path& p) {
  std::error_code ec;
  fs::path target = fs::read_symlink(p, ec);
  return ec ? std::string() : target.filename().string();
}

}  // namespace

std::string normalize_bdf(const std::string& in) {
  static const std::regex re("^(([0-9a-fA-F]{4}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\\.([0-7])$");
  std::smatch m;
  if (!std::regex_match(in, m, re))
    throw std::runtime_error("'" + in + "' is not a PCI address (expected e.g. 0000:01:00.0)");
  std::string s = (m[2].matched ? m[2].str() : std::string("0000")) + ":" + m[3].str() + ":" +
                  m[4].str() + "." + m[5].str();
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool pci_device_exists(const std::string& bdf) {
  std::error_code ec;
  return fs::exists(kDevices / bdf, ec);
}

std::string current_driver(const std::string& bdf) {
  fs::path dev = kDevices / bdf;
  if (!fs::exists(dev)) throw std::runtime_error("no PCI device " + bdf + " (see lspci -D)");
  return link_name(dev / "driver");
}

int iommu_group(const std::string& bdf) {
  std::string g = link_name(kDevices / bdf / "iommu_group");
  if (g.empty())
    throw std::runtime_error("device " + bdf +
                             " has no IOMMU group: the IOMMU is off (boot with intel_iommu=on or "
                             "amd_iommu=on; this tool does not use VFIO no-IOMMU mode)");
  return std::stoi(g);
}

void require_vfio_pci(const std::string& bdf) {
  std::string drv = current_driver(bdf);
  if (drv == "vfio-pci") return;
  throw Refusal("refusing " + bdf + ": it is bound to " +
                           (drv.empty() ? std::string("no driver") : "driver '" + drv + "'") +
                           ", not vfio-pci. Run `nvmesim-hw bind " + bdf +
                           "` first (it refuses a drive in use and saves the driver for "
                           "`nvmesim-hw unbind`), or pass --bind to bind it for this command only.");
}

std::vector<std::string> block_devices(const std::string& bdf) {
  std::vector<std::string> disks;
  std::error_code ec;
  fs::path ctrls = kDevices / bdf / "nvme";
  if (!fs::exists(ctrls, ec)) return disks;
  for (const auto& c : fs::directory_iterator(ctrls, ec)) {
    std::string ctrl = c.path().filename().string();  // nvmeX
    // Without multipath the namespaces (nvmeXnY) sit under the controller.
    for (const auto& e : fs::directory_iterator(c.path(), ec)) {
      std::string n = e.path().filename().string();
      if (std::regex_match(n, std::regex("nvme[0-9]+n[0-9]+"))) disks.push_back(n);
    }
    // With multipath the block device belongs to the subsystem the controller is in.
    for (const auto& s : fs::directory_iterator("/sys/class/nvme-subsystem", ec)) {
      if (!fs::exists(s.path() / ctrl)) continue;
      for (const auto& e : fs::directory_iterator(s.path(), ec)) {
        std::string n = e.path().filename().string();
        if (std::regex_match(n, std::regex("nvme[0-9]+n[0-9]+"))) disks.push_back(n);
      }
    }
  }
  std::vector<std::string> all;
  for (const auto& d : disks) {
    if (std::find(all.begin(), all.end(), d) != all.end()) continue;
    all.push_back(d);
    for (const auto& e : fs::directory_iterator(fs::path("/sys/block") / d, ec)) {
      std::string n = e.path().filename().string();
      if (n.rfind(d + "p", 0) == 0) all.push_back(n);
    }
  }
  return all;
}

std::string state_dir() {
  const char* s = std::getenv("NVMESIM_HW_STATE_DIR");
  return s && *s ? s : "/run/nvmesim-hw";
}

std::string pci_class(const std::string& bdf) { return read_text(kDevices / bdf / "class"); }

}  // namespace nvmesim::hw
