#include "models/host/platform_placement.h"

#include <algorithm>
#include <cassert>

namespace nvmesim {

PlatformPlacement::PlatformPlacement(const Scenario& sc)
    : sockets_(std::max(sc.host.platform.sockets, 1u)), cores_(std::max(sc.host.cores, 1u)) {
  const uint32_t per = std::max(sc.host.platform.drives_per_root_complex, 1u);
  const auto n = static_cast<uint32_t>(sc.drives.size());
  drives_.resize(n);
  // Sockets first: a drive's own, else round robin over the drives left to place.
  for (uint32_t d = 0; d < n; ++d) drives_[d].socket = sc.drives[d].socket.value_or(d % sockets_);
  // Root complexes: the scenario's, then the socket's next free slot (a placed root
  // complex holds as many drives as the scenario puts there; the default fills).
  std::vector<std::vector<uint32_t>> used(sockets_);  // socket -> root complex -> drives
  for (uint32_t d = 0; d < n; ++d) {
    if (!sc.drives[d].root_complex) continue;
    auto& u = used[drives_[d].socket];
    const uint32_t rc = *sc.drives[d].root_complex;
    if (u.size() <= rc) u.resize(rc + 1, 0);
    ++u[rc];
    drives_[d].root_complex = rc;
  }
  for (uint32_t d = 0; d < n; ++d) {
    if (sc.drives[d].root_complex) continue;
    auto& u = used[drives_[d].socket];
    uint32_t rc = 0;
    while (rc < u.size() && u[rc] >= per) ++rc;
    if (u.size() <= rc) u.resize(rc + 1, 0);
    ++u[rc];
    drives_[d].root_complex = rc;
  }
  // Global unit numbers: socket by socket, root complex by root complex.
  std::vector<uint32_t> first(sockets_, 0);
  for (uint32_t s = 0; s < sockets_; ++s) {
    first[s] = static_cast<uint32_t>(unit_socket_.size());
    unit_socket_.insert(unit_socket_.end(), used[s].size(), s);
  }
  for (uint32_t d = 0; d < n; ++d) drives_[d].unit = first[drives_[d].socket] + drives_[d].root_complex;
}

uint32_t PlatformPlacement::core_socket(uint32_t core) const {
  const uint32_t per = std::max(cores_ / sockets_, 1u);
  return std::min(core / per, sockets_ - 1);
}

}  // namespace nvmesim
