// Restoring the kernel driver when the process is about to die of a signal it can
// catch (SIGSEGV, SIGBUS, SIGABRT, SIGQUIT, SIGHUP, ...; SIGINT and SIGTERM are not
// fatal here, they stop a run cleanly). The handler releases the VFIO device
// (hw/pci/vfio_release.h: vfio-pci's unbind waits for that), fires the prepared restore,
// tells the guardian it is done, and dies of the same signal. SIGKILL cannot be
// caught: hw/pci/restore_guardian.h covers it.
#pragma once

#include "hw/pci/driver_restore.h"

namespace nvmesim::hw {

// `done_fd`: a byte is written there after the restore (-1: none). One armed restore
// per process.
void arm_fatal_signal_restore(PreparedRestore* restore, int done_fd);
// Back to the default actions (the restore has run, or the device is released).
void disarm_fatal_signal_restore();

}  // namespace nvmesim::hw
