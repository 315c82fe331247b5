// Where each drive sits on the host platform: its socket and its root complex (an IIO
// stack with its own interrupt-remapping unit). A pure mapping from the scenario, like
// Topology: the interrupt delivery model, the partitioning and the results read it.
#pragma once

#include <cstdint>
#include <vector>

#include "vocab/scenario.h"

namespace nvmesim {

class PlatformPlacement {
 public:
  struct Drive {
    uint32_t socket = 0;
    uint32_t root_complex = 0;  // within the socket
    uint32_t unit = 0;          // the root complex numbered over the whole host
  };
  // Drives the scenario does not place go where servers wire their bays: drive i on
  // socket i % sockets, and each socket's drives fill its root complexes
  // `drives_per_root_complex` at a time after the ones the scenario placed there.
  explicit PlatformPlacement(const Scenario& sc);

  const Drive& drive(uint32_t d) const { return drives_[d]; }
  uint32_t drive_count() const { return static_cast<uint32_t>(drives_.size()); }
  uint32_t sockets() const { return sockets_; }
  uint32_t units() const { return static_cast<uint32_t>(unit_socket_.size()); }
  uint32_t unit_socket(uint32_t unit) const { return unit_socket_[unit]; }
  // The socket of a core: the host's cores split evenly, in order, over the sockets.
  uint32_t core_socket(uint32_t core) const;

 private:
  uint32_t sockets_ = 1;
  uint32_t cores_ = 1;
  std::vector<Drive> drives_;
  std::vector<uint32_t> unit_socket_;
};

}  // namespace nvmesim
