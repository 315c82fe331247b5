#include "hw/pci_sysfs.h"

#include "hw/refusal.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "hw/refusal.h"

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

void write_text(const fs::path& p, const std::string& value) {
  std::ofstream out(p);
  out << value;
  out.flush();
  if (!out) throw std::runtime_error("writing '" + value + "' to " + p.string() + " failed");
}

std::string link_name(const fs::path& p) {
  std::error_code ec;
  fs::path target = fs::read_symlink(p, ec);
  return ec ? std::string() : target.filename().string();
}

// Lines of /proc/mounts or /proc/swaps naming /dev/<name> as the first field.
bool listed_in(const char* file, const std::string& name) {
  std::ifstream in(file);
  std::string line;
  std::string dev = "/dev/" + name;
  while (std::getline(in, line)) {
    std::string first = line.substr(0, line.find_first_of(" \t"));
    if (first == dev) return true;
  }
  return false;
}

bool has_holders(const fs::path& block_dir) {
  std::error_code ec;
  fs::path h = block_dir / "holders";
  return fs::exists(h, ec) && !fs::is_empty(h, ec);
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
                           "` first (it refuses a drive with mounted filesystems and saves the "
                           "driver for `nvmesim-hw unbind`).");
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

std::vector<std::string> busy_block_devices(const std::string& bdf) {
  std::vector<std::string> busy;
  for (const auto& name : block_devices(bdf)) {
    fs::path dir = fs::path("/sys/class/block") / name;
    if (listed_in("/proc/mounts", name) || listed_in("/proc/swaps", name) || has_holders(dir))
      busy.push_back(name);
  }
  return busy;
}

std::string state_dir() {
  const char* s = std::getenv("NVMESIM_HW_STATE_DIR");
  return s && *s ? s : "/run/nvmesim-hw";
}

std::string bind_vfio(const std::string& bdf) {
  std::string drv = current_driver(bdf);
  if (drv == "vfio-pci") return bdf + " is already bound to vfio-pci";
  std::string cls = read_text(kDevices / bdf / "class");
  if (cls.rfind("0x0108", 0) != 0)
    throw Refusal("refusing " + bdf + ": PCI class " + cls + " is not an NVMe controller");
  auto busy = busy_block_devices(bdf);
  if (!busy.empty()) {
    std::string list;
    for (const auto& b : busy) list += " /dev/" + b;
    throw Refusal("refusing " + bdf + ": in use (mounted, swap or held by dm/md):" + list +
                             ". Unmount it first; this tool never takes a drive in use.");
  }
  iommu_group(bdf);  // fail early, with the IOMMU message, before unbinding anything
  if (!fs::exists("/sys/bus/pci/drivers/vfio-pci")) {
    [[maybe_unused]] int rc = std::system("modprobe vfio-pci >/dev/null 2>&1");
    if (!fs::exists("/sys/bus/pci/drivers/vfio-pci"))
      throw std::runtime_error("the vfio-pci driver is not available (modprobe vfio-pci)");
  }
  fs::create_directories(state_dir());
  write_text(fs::path(state_dir()) / bdf, drv + "\n");

  write_text(kDevices / bdf / "driver_override", "vfio-pci");
  if (!drv.empty()) write_text(kDevices / bdf / "driver" / "unbind", bdf);
  write_text("/sys/bus/pci/drivers_probe", bdf);
  if (current_driver(bdf) != "vfio-pci")
    throw std::runtime_error("binding " + bdf + " to vfio-pci failed (see dmesg)");
  return "bound " + bdf + " to vfio-pci (was: " + (drv.empty() ? "no driver" : drv) +
         "); `nvmesim-hw unbind " + bdf + "` restores it";
}

std::string unbind_vfio(const std::string& bdf) {
  std::string drv = current_driver(bdf);
  if (drv != "vfio-pci")
    return bdf + " is not bound to vfio-pci (driver: " + (drv.empty() ? "none" : drv) + "): nothing to do";
  fs::path saved_file = fs::path(state_dir()) / bdf;
  std::string saved = fs::exists(saved_file) ? read_text(saved_file) : "";
  write_text(kDevices / bdf / "driver" / "unbind", bdf);
  write_text(kDevices / bdf / "driver_override", "\n");  // a bare newline clears it
  bool bound = false;
  if (!saved.empty() && fs::exists(fs::path("/sys/bus/pci/drivers") / saved)) {
    try {
      write_text(fs::path("/sys/bus/pci/drivers") / saved / "bind", bdf);
      bound = true;
    } catch (const std::exception&) {
    }
  }
  if (!bound) write_text("/sys/bus/pci/drivers_probe", bdf);
  std::error_code ec;
  fs::remove(saved_file, ec);
  std::string now = current_driver(bdf);
  return "released " + bdf + " from vfio-pci; now bound to " + (now.empty() ? "no driver" : now) +
         (saved.empty() ? "" : " (saved driver: " + saved + ")");
}

}  // namespace nvmesim::hw
