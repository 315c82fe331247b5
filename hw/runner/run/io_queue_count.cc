#include "hw/runner/run/io_queue_count.h"

#include <algorithm>
#include <string>

#include "hw/base/refusal.h"

namespace nvmesim::hw {

uint32_t io_queue_count(const char* bdf, uint32_t want, uint32_t granted, uint32_t msix_vectors) {
  if (msix_vectors == 0)
    throw Refusal(std::string("refusing ") + bdf +
                  ": it reports 0 MSI-X vectors (VFIO_DEVICE_GET_IRQ_INFO); the runner needs one for the admin "
                  "queue and one per interrupt-driven I/O queue");
  if (granted == 0)
    throw Refusal(std::string("refusing ") + bdf + ": the controller granted no I/O queue (Set Features 07h)");
  uint32_t n = std::min(want, granted);
  // One vector per queue after the admin queue's; with a single vector, one queue
  // (polled policies need no vector of their own).
  return std::max(1u, std::min(n, msix_vectors - 1));
}

}  // namespace nvmesim::hw
