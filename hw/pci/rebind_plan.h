// The sysfs writes that move a PCI function to vfio-pci and back, as data: the bind is
// a sequence of steps each with its undo, run so that a step failing halfway undoes
// the steps already done (last first); the restore is the undo of the whole bind,
// precomputed so a fatal-signal handler can replay it with write(2) alone
// (hw/pci/driver_restore.h). Pure: tests run it on a recording writer.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace nvmesim::hw {

struct SysfsWrite {
  std::string path;
  std::string value;
  bool operator==(const SysfsWrite&) const = default;
};

struct RebindStep {
  SysfsWrite act;
  std::vector<SysfsWrite> undo;  // best effort, in order
};

// To vfio-pci from `driver` ("" = none): unbind from it, set driver_override, probe.
// The override is set after the unbind so that its undo (clearing it) runs before the
// original driver's bind, which an override naming vfio-pci would refuse.
std::vector<RebindStep> vfio_bind_steps(const std::string& bdf, const std::string& driver);

// Back from vfio-pci to `driver`: the undos of vfio_bind_steps, last step first, then a
// drivers_probe (a no-op when the bind took; the kernel's own pick when it did not, or
// when `driver` is "" and unknown_driver is true).
std::vector<SysfsWrite> vfio_restore_writes(const std::string& bdf, const std::string& driver,
                                            bool unknown_driver = false);

// Writes one value; false (and *error) when the kernel refused it.
using SysfsWriter = std::function<bool(const SysfsWrite&, std::string* error)>;

// Runs the steps in order. When one fails, runs the undos of those done, last first,
// and returns what failed ("" when every step took). `verify` runs after the last step
// (e.g. "is vfio-pci the driver now?"); its failure ("" = fine) also rolls back.
std::string run_with_rollback(const std::vector<RebindStep>& steps, const SysfsWriter& write,
                              const std::function<std::string()>& verify = {});

}  // namespace nvmesim::hw
