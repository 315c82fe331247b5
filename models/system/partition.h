// Which parts of a scenario's machine can be simulated apart: the connected components of
// what interacts. A job clone ties its core to the drives it submits to; a queue some job
// submits to ties its drive to the core its vector interrupts (hard IRQ, IRQ thread,
// softirq, timers and completion IPIs all land on that core or the submitter's); a drive
// policy's monitor ties its drive to the monitor's core; an active MSI-X delivery path
// ties together the drives behind it. Nothing else is shared, so each component runs as
// its own System and draws the same random numbers (streams are keyed by global ids) and
// reaches the same state as in a run of the whole machine. A pure mapping, like the
// topology, so a test checks it on its own.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/host/topology.h"
#include "vocab/scenario.h"

namespace nvmesim {

// One component, by global ids in ascending order.
struct Partition {
  std::vector<uint32_t> cores, drives, jobs;
};

class Partitioning {
 public:
  // `drive_monitors`: the policy runs per drive (a monitor on topology.monitor_core).
  // `drive_socket`: the socket of each drive when the platform's interrupt delivery couples
  // the drives of a socket (they share its units); empty: nothing couples drives.
  Partitioning(const Topology& topology, bool drive_monitors, std::span<const uint32_t> drive_socket = {});
  static Partitioning of(const Scenario& sc, const Topology& topology);

  // Ordered by the lowest global id each holds (cores first, then drives, then jobs).
  // A core that nothing uses does nothing; it is reported with the first partition.
  const std::vector<Partition>& parts() const { return parts_; }
  std::size_t size() const { return parts_.size(); }
  uint32_t core_part(uint32_t core) const { return core_part_[core]; }
  uint32_t drive_part(uint32_t drive) const { return drive_part_[drive]; }
  uint32_t job_part(uint32_t job) const { return job_part_[job]; }

 private:
  std::vector<Partition> parts_;
  std::vector<uint32_t> core_part_, drive_part_, job_part_;
};

}  // namespace nvmesim
