// The subcommands of nvmesim-hw other than `run` (run_on_device.h): identify a
// controller, write/read-back test on an allowed LBA range.
#pragma once

#include <ostream>
#include <string>

#include "hw/runner/run/run_on_device.h"

namespace nvmesim::hw {

// Prints controller and namespace identity, queue/vector limits, the interrupt
// coalescing features (probing that a refused Set Features 08h is tolerated) and the
// measured cost of masking a vector through VFIO.
int identify_command(const std::string& bdf, std::ostream& out);

// Writes a pattern unique to each block over `range` in chunks of `chunk_bytes`,
// flushes, reads it back and compares. Stops early on SIGINT/SIGTERM.
int rwtest_command(const std::string& bdf, LbaRange range, uint32_t chunk_bytes,
                   const std::atomic<bool>* stop, std::ostream& out);

}  // namespace nvmesim::hw
