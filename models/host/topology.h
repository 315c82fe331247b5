// Where a scenario's work runs: which cores the job clones are pinned to, which queue of
// each drive a core submits to, which core each queue's vector interrupts, and which
// policy each queue runs. A pure mapping computed once from the scenario's shape, with no
// event queue and no models, so the simulator and the hw runner place work and choose
// each queue's policy by the same rules, and a test checks the mapping on its own.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "policies/queue_eligibility.h"
#include "policies/registry.h"
#include "vocab/scenario.h"

namespace nvmesim {

// One drive as the topology sees it.
struct DriveShape {
  uint32_t io_queues = 1;
  VectorShape vectors;
};

class Topology {
 public:
  struct Queue {
    uint32_t drive = 0;
    uint32_t qid = 0;   // within the drive; also its MSI-X vector
    uint32_t core = 0;  // the vector's effective affinity: one core of those that submit to it
    const policy::PolicyInfo* policy = nullptr;
  };
  struct JobClone {
    uint32_t spec = 0;   // index into the scenario's jobs
    uint32_t clone = 0;  // 0..numjobs-1
    uint32_t core = 0;
    std::vector<uint32_t> queues;  // global queue per target drive, in the spec's order
  };

  Topology(uint32_t cores, std::span<const DriveShape> drives, std::span<const JobSpec> jobs,
           const policy::PolicyInfo& policy, IrqEffectiveCpu effective_cpu = IrqEffectiveCpu::first_in_mask);

  // The simulator's shape of a scenario: one I/O queue per core unless io_queues says
  // otherwise, capped by the drive, and one vector per I/O queue (the admin queue shares
  // the first, as when the kernel gets no more vectors than I/O queues) -- or, when the
  // drive's profile gives its MSI-X table size, the driver's num_vecs rule.
  static std::vector<DriveShape> simulated_drives(const Scenario& sc);
  static Topology of(const Scenario& sc);

  uint32_t core_count() const { return cores_; }
  uint32_t drive_count() const { return static_cast<uint32_t>(drive_queues_.size()); }
  // Queues are numbered globally, drive by drive, qid by qid.
  uint32_t queue_count() const { return static_cast<uint32_t>(queues_.size()); }
  const Queue& queue(uint32_t gq) const { return queues_[gq]; }
  const std::vector<uint32_t>& drive_queues(uint32_t drive) const { return drive_queues_[drive]; }
  // The queue of `drive` that a task on `core` submits to.
  uint32_t core_queue(uint32_t drive, uint32_t core) const { return core_queue_[drive][core]; }
  // Job clones in order: spec by spec, clone by clone.
  const std::vector<JobClone>& jobs() const { return jobs_; }
  // A drive policy's monitor runs as deferred work on the core of the drive's first queue.
  uint32_t monitor_core(uint32_t drive) const { return queues_[drive_queues_[drive][0]].core; }

 private:
  // The core of its mask (the cores that submit to it) that takes a queue's interrupts.
  uint32_t effective_core(uint32_t drive, uint32_t gq, IrqEffectiveCpu rule) const;

  uint32_t cores_;
  std::vector<uint32_t> vectors_on_core_;  // vectors placed so far per core
  std::vector<Queue> queues_;
  std::vector<std::vector<uint32_t>> drive_queues_;  // drive -> global queue ids
  std::vector<std::vector<uint32_t>> core_queue_;    // drive -> core -> global queue id
  std::vector<JobClone> jobs_;
};

}  // namespace nvmesim
