// A process that outlives the runner to give the device back when the runner dies in
// a way nothing inside it can see (SIGKILL, the OOM killer): forked before the device
// is opened, it waits on a pipe whose only writer is the runner. A 'D' means the
// runner restored the driver itself; end of file without it means the runner is gone,
// and the guardian waits until its fds and mappings are released (its /proc entry is a
// zombie or gone) and fires its copy of the prepared restore.
#pragma once

#include <sys/types.h>

#include "hw/driver_restore.h"
#include "hw/unique_fd.h"

namespace nvmesim::hw {

class RestoreGuardian {
 public:
  // Forks; call while the process has one thread. `restore` is inherited by the child.
  explicit RestoreGuardian(PreparedRestore& restore);
  // Dismisses the guardian and reaps it.
  ~RestoreGuardian();
  RestoreGuardian(const RestoreGuardian&) = delete;
  RestoreGuardian& operator=(const RestoreGuardian&) = delete;

  // The runner restored the driver: the guardian ends without doing anything.
  void dismiss();
  // Where a fatal-signal handler writes 'D' after its own restore.
  int done_fd() const { return done_.get(); }

 private:
  pid_t child_ = -1;
  UniqueFd done_;
};

}  // namespace nvmesim::hw
