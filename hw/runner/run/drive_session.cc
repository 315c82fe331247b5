#include "hw/runner/run/drive_session.h"

#include <stdexcept>

namespace nvmesim::hw {

DriveSession::DriveSession(const std::string& bdf, uint32_t nsid) {
  device_ = std::make_unique<VfioDevice>(container_, bdf);
  irqs_ = std::make_unique<VfioIrqs>(device_->fd(), device_->msix_vectors());
  ctrl_ = std::make_unique<nvme::Controller>(device_->bar0(), container_, clock_);
  try {
    ctrl_->enable();
    info_ = ctrl_->identify_controller();
    if (nsid == 0 || nsid > info_.nn)
      throw std::runtime_error("namespace " + std::to_string(nsid) + " does not exist (controller has " +
                               std::to_string(info_.nn) + ")");
    ns_ = ctrl_->identify_namespace(nsid);
    if (ns_.size_blocks == 0) throw std::runtime_error("namespace " + std::to_string(nsid) + " is inactive");
  } catch (...) {
    ctrl_->disable();
    throw;
  }
}

DriveSession::~DriveSession() { close(); }

bool DriveSession::close() {
  if (closed_) return false;
  closed_ = true;
  // Vectors first: no eventfd stays bound while the controller goes down.
  if (irqs_) irqs_->disable();
  if (failed_) {
    ctrl_->disable();
    return false;
  }
  return ctrl_->shutdown();
}

}  // namespace nvmesim::hw
