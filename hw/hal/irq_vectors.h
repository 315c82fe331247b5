// MSI-X vectors as user space sees them: each one signals an eventfd. VFIO binds the
// eventfds to the device (hw/vfio/irqs.h); unit tests signal them from a fake controller.
#pragma once

#include <cstdint>

#include "vocab/time.h"

namespace nvmesim::hw {

class IrqVectors {
 public:
  virtual ~IrqVectors() = default;
  // Enables vectors 0..count-1, each bound to its own eventfd. Called once.
  virtual void enable(uint32_t count) = 0;
  virtual void disable() = 0;
  virtual uint32_t count() const = 0;
  // The vector's eventfd, for poll(2). Reading it consumes the pending signals.
  virtual int fd(uint32_t vector) const = 0;
  // Blocks until the vector fires or `timeout` passes; returns the signals consumed
  // (several interrupts may coalesce into one eventfd count), 0 on timeout.
  virtual uint64_t wait(uint32_t vector, Duration timeout) = 0;
  // Hardware masking of one vector: stop (false) or resume (true) delivery. With VFIO
  // this detaches and re-attaches the eventfd, which masks the MSI-X entry in the host
  // kernel; a message raised meanwhile stays pending at the device and is delivered on
  // resume. See docs/hw.md for the cost.
  virtual void set_delivery(uint32_t vector, bool on) = 0;
  // Signals the vector's eventfd from software: replays an interrupt that was held
  // while the vector was disabled (what enable_irq does with IRQS_PENDING).
  virtual void replay(uint32_t vector) = 0;
};

}  // namespace nvmesim::hw
