// MSI-X vectors of a VFIO device, each bound to an eventfd with VFIO_DEVICE_SET_IRQS.
#pragma once

#include <cstdint>
#include <vector>

#include "hw/base/unique_fd.h"
#include "hw/hal/irq_vectors.h"

namespace nvmesim::hw {

class VfioIrqs final : public IrqVectors {
 public:
  VfioIrqs(int device_fd, uint32_t available) : device_fd_(device_fd), available_(available) {}
  ~VfioIrqs() override { disable(); }

  void enable(uint32_t count) override;
  void disable() override;
  uint32_t count() const override { return uint32_t(fds_.size()); }
  int fd(uint32_t vector) const override { return fds_.at(vector).get(); }
  uint64_t wait(uint32_t vector, Duration timeout) override;
  void set_delivery(uint32_t vector, bool on) override;
  void replay(uint32_t vector) override;

  // Whether VFIO accepts VFIO_IRQ_SET_ACTION_MASK on MSI-X (it does not, as of Linux
  // 6.x: masking is implemented for INTx only). Probed for the documentation.
  bool probe_action_mask(int* err);

 private:
  void bind(uint32_t start, const std::vector<int32_t>& fds);
  int device_fd_;
  uint32_t available_;
  std::vector<UniqueFd> fds_;
};

}  // namespace nvmesim::hw
