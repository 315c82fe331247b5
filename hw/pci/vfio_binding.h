// Moving a controller from its kernel driver to vfio-pci and back.
//   bind_vfio / unbind_vfio: the `bind` and `unbind` commands; the original driver is
//     saved in state_dir() between them.
//   TemporaryVfioBinding: `--bind` of identify, rwtest and run: bound for one command
//     and given back on every exit path (normal end, error, SIGINT/SIGTERM through the
//     normal end, a fatal signal through hw/pci/fatal_signal_restore.h, SIGKILL through
//     hw/pci/restore_guardian.h).
// Both refuse (Refusal) a function that is not an NVMe controller or whose block
// devices are in use (hw/pci/block_usage_probe.h), and roll a bind that fails halfway back.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "hw/pci/driver_restore.h"
#include "hw/pci/restore_guardian.h"

namespace nvmesim::hw {

// Returns a message for the user; throws Refusal or std::runtime_error.
std::string bind_vfio(const std::string& bdf);
// Back to the driver saved by bind_vfio (the kernel picks one when nothing was saved).
std::string unbind_vfio(const std::string& bdf);

class TemporaryVfioBinding {
 public:
  // A device already on vfio-pci is used as it is and left so.
  TemporaryVfioBinding(const std::string& bdf, std::ostream& log);
  ~TemporaryVfioBinding();  // gives the device back; call after the device is closed
  TemporaryVfioBinding(const TemporaryVfioBinding&) = delete;
  TemporaryVfioBinding& operator=(const TemporaryVfioBinding&) = delete;

 private:
  std::string bdf_;
  std::string driver_;  // the one to give it back to
  std::ostream& log_;
  std::unique_ptr<PreparedRestore> restore_;  // null: nothing to give back
  std::unique_ptr<RestoreGuardian> guardian_;
};

}  // namespace nvmesim::hw
