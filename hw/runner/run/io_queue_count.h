// How many I/O queue pairs a run gets: what the job asks for (numjobs), capped by what
// the controller granted (Set Features 07h) and by the MSI-X vectors beyond vector 0,
// the admin queue's (each interrupt-driven queue has its own). Pure, so the edge cases
// are tested without a device: a device reporting 0 vectors once made
// "vectors - 1" wrap to 4294967295 queues.
#pragma once

#include <cstdint>

namespace nvmesim::hw {

// At least 1. Throws Refusal (hw/base/refusal.h) naming `bdf` when the device reports no
// MSI-X vector or the controller granted no I/O queue.
uint32_t io_queue_count(const char* bdf, uint32_t want, uint32_t granted, uint32_t msix_vectors);

}  // namespace nvmesim::hw
