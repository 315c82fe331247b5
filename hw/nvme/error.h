// Errors of the NVMe layer. Each carries a message meant for the person at the terminal.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace nvmesim::hw::nvme {

struct NvmeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// CSTS.CFS set (or the device reads all ones): the controller cannot go on. The only
// way out is a reset; the driver stops and releases the device.
struct ControllerFatal : NvmeError {
  using NvmeError::NvmeError;
};

// A command got no completion within its timeout.
struct CommandTimeout : NvmeError {
  using NvmeError::NvmeError;
};

// A command completed with an error status.
struct CommandFailed : NvmeError {
  CommandFailed(const std::string& what, uint16_t sf) : NvmeError(what), status(sf) {}
  uint16_t status;
};

}  // namespace nvmesim::hw::nvme
