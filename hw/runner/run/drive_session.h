// An NVMe controller opened over VFIO for the length of one command: container,
// device, vectors, controller enabled and identified. The destructor shuts the
// controller down (CC.SHN) and releases everything, also after an error; after a
// fatal status it only disables (a shutdown cannot complete then).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "hw/base/clock.h"
#include "hw/nvme/controller.h"
#include "hw/vfio/container.h"
#include "hw/vfio/device.h"
#include "hw/vfio/irqs.h"

namespace nvmesim::hw {

class DriveSession {
 public:
  explicit DriveSession(const std::string& bdf, uint32_t nsid = 1);
  ~DriveSession();
  DriveSession(const DriveSession&) = delete;
  DriveSession& operator=(const DriveSession&) = delete;

  nvme::Controller& ctrl() { return *ctrl_; }
  VfioContainer& dma() { return container_; }
  VfioIrqs& irqs() { return *irqs_; }
  VfioDevice& device() { return *device_; }
  MonotonicClock& clock() { return clock_; }
  // Completions on all the controller's I/O queues (their envs count into it).
  std::atomic<uint64_t>& completions() { return completions_; }
  // The word its queues' policies share (QueueEnv::drive_word).
  std::atomic<uint64_t>& policy_word() { return policy_word_; }
  const nvme::ControllerInfo& info() const { return info_; }
  const nvme::NamespaceInfo& ns() const { return ns_; }
  // The controller failed (CFS, timeout): teardown resets instead of shutting down.
  void mark_failed() { failed_ = true; }
  // Shuts the controller down (or resets it after a failure) and unbinds the vectors.
  // True when the controller confirmed a normal shutdown. Idempotent.
  bool close();

 private:
  MonotonicClock clock_;
  VfioContainer container_;
  std::unique_ptr<VfioDevice> device_;
  std::unique_ptr<VfioIrqs> irqs_;
  std::unique_ptr<nvme::Controller> ctrl_;
  nvme::ControllerInfo info_;
  nvme::NamespaceInfo ns_;
  bool failed_ = false;
  bool closed_ = false;
  std::atomic<uint64_t> completions_{0};
  std::atomic<uint64_t> policy_word_{0};
};

}  // namespace nvmesim::hw
