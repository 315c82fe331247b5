#include "hw/vfio_binding.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hw/block_usage_probe.h"
#include "hw/fatal_signal_restore.h"
#include "hw/pci_sysfs.h"
#include "hw/rebind_plan.h"
#include "hw/refusal.h"

namespace nvmesim::hw {

namespace fs = std::filesystem;

namespace {

bool write_sysfs(const SysfsWrite& w, std::string* error) {
  int fd = open(w.path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::strerror(errno);
    return false;
  }
  ssize_t n = write(fd, w.value.data(), w.value.size());
  int err = errno;
  close(fd);
  if (n == ssize_t(w.value.size())) return true;
  *error = n < 0 ? std::strerror(err) : "short write";
  return false;
}

fs::path saved_driver_file(const std::string& bdf) { return fs::path(state_dir()) / bdf; }

std::string describe(const std::string& driver) { return driver.empty() ? "no driver" : driver; }

// Checks, then binds to vfio-pci with rollback; returns the driver it had. The state
// file records that driver for `unbind`. Throws (after the rollback) when it did not bind.
std::string take_for_vfio(const std::string& bdf) {
  const std::string driver = current_driver(bdf);
  const std::string cls = pci_class(bdf);
  if (cls.rfind("0x0108", 0) != 0)
    throw Refusal("refusing " + bdf + ": PCI class " + cls + " is not an NVMe controller");
  BlockUsageReport usage = probe_block_usage(bdf);
  if (!usage.uses.empty()) {
    std::string list;
    for (const auto& u : usage.uses) list += "\n  " + u.str();
    throw Refusal("refusing " + bdf + ": its block devices are in use:" + list +
                  "\nUnmount, swapoff, stop or close them first; this tool never takes a drive in use.");
  }
  iommu_group(bdf);  // fails early, with the IOMMU message, before unbinding anything
  if (!fs::exists("/sys/bus/pci/drivers/vfio-pci")) {
    [[maybe_unused]] int rc = std::system("modprobe vfio-pci >/dev/null 2>&1");
    if (!fs::exists("/sys/bus/pci/drivers/vfio-pci"))
      throw std::runtime_error("the vfio-pci driver is not available (modprobe vfio-pci)");
  }
  fs::create_directories(state_dir());
  {
    std::ofstream out(saved_driver_file(bdf));
    out << driver << "\n";
    if (!out) throw std::runtime_error("cannot save the driver of " + bdf + " in " + state_dir());
  }
  // usage.claims stay open across the unbind: nothing can mount in between.
  std::string failure = run_with_rollback(vfio_bind_steps(bdf, driver), write_sysfs, [&]() -> std::string {
    std::string now = current_driver(bdf);
    return now == "vfio-pci" ? "" : "after the probe " + bdf + " is on " + describe(now) + ", not vfio-pci";
  });
  if (!failure.empty()) {
    std::error_code ec;
    fs::remove(saved_driver_file(bdf), ec);
    throw std::runtime_error("binding " + bdf + " to vfio-pci failed (" + failure + "); rolled back, now on " +
                             describe(current_driver(bdf)) + " (see dmesg)");
  }
  return driver;
}

}  // namespace

std::string bind_vfio(const std::string& bdf) {
  if (current_driver(bdf) == "vfio-pci") return bdf + " is already bound to vfio-pci";
  std::string driver = take_for_vfio(bdf);
  return "bound " + bdf + " to vfio-pci (was: " + describe(driver) + "); `nvmesim-hw unbind " + bdf +
         "` restores it";
}

std::string unbind_vfio(const std::string& bdf) {
  std::string drv = current_driver(bdf);
  if (drv != "vfio-pci") return bdf + " is not bound to vfio-pci (driver: " + describe(drv) + "): nothing to do";
  fs::path saved_file = saved_driver_file(bdf);
  bool known = fs::exists(saved_file);
  std::string saved;
  if (known) {
    std::ifstream in(saved_file);
    std::getline(in, saved);
  }
  PreparedRestore(vfio_restore_writes(bdf, saved, !known)).fire();
  std::error_code ec;
  fs::remove(saved_file, ec);
  return "released " + bdf + " from vfio-pci; now bound to " + describe(current_driver(bdf)) +
         (known ? " (saved driver: " + describe(saved) + ")" : " (no saved driver: the kernel's pick)");
}

TemporaryVfioBinding::TemporaryVfioBinding(const std::string& bdf, std::ostream& log) : bdf_(bdf), log_(log) {
  driver_ = current_driver(bdf);
  if (driver_ == "vfio-pci") {
    log_ << "note: " << bdf << " is already on vfio-pci: used as it is and left bound\n";
    return;
  }
  // The restore and its guardian exist before the bind, so no moment after the bind is
  // uncovered. A bind that is refused or rolled back dismisses the guardian unused.
  auto restore = std::make_unique<PreparedRestore>(vfio_restore_writes(bdf, driver_));
  auto guardian = std::make_unique<RestoreGuardian>(*restore);
  take_for_vfio(bdf);
  restore_ = std::move(restore);
  guardian_ = std::move(guardian);
  arm_fatal_signal_restore(restore_.get(), guardian_->done_fd());
  log_ << "bound " << bdf << " to vfio-pci for this command (was: " << describe(driver_)
       << "); it goes back on exit\n"
       << std::flush;
}

TemporaryVfioBinding::~TemporaryVfioBinding() {
  if (!restore_) return;
  restore_->fire();
  disarm_fatal_signal_restore();
  guardian_.reset();  // dismissed and reaped
  std::string now;
  try {
    now = current_driver(bdf_);
  } catch (const std::exception&) {
  }
  if (now == driver_) {
    std::error_code ec;
    fs::remove(saved_driver_file(bdf_), ec);  // kept otherwise, for `unbind`
    log_ << "gave " << bdf_ << " back to " << describe(driver_) << "\n";
  } else {
    log_ << "warning: " << bdf_ << " is on " << describe(now) << " after the restore, not " << describe(driver_)
         << ": run `nvmesim-hw unbind " << bdf_ << "`\n";
  }
}

}  // namespace nvmesim::hw
