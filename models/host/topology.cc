#include "models/host/topology.h"

#include <algorithm>
#include <cassert>

namespace nvmesim {

Topology::Topology(uint32_t cores, std::span<const DriveShape> drives, std::span<const JobSpec> jobs,
                   const policy::PolicyInfo& policy, IrqEffectiveCpu effective_cpu)
    : cores_(cores), vectors_on_core_(cores, 0) {
  assert(cores > 0);
  constexpr uint32_t kUnset = UINT32_MAX;
  for (uint32_t d = 0; d < drives.size(); ++d) {
    const uint32_t nq = drives[d].io_queues;
    assert(nq > 0);
    const policy::PolicyInfo& use = queue_policy(policy, drives[d].vectors);
    drive_queues_.emplace_back();
    for (uint32_t qid = 0; qid < nq; ++qid) {
      drive_queues_[d].push_back(static_cast<uint32_t>(queues_.size()));
      queues_.push_back(Queue{d, qid, kUnset, &use});
    }
    // The kernel spreads cores evenly over queues: core c uses queue c * nq / cores.
    core_queue_.emplace_back(cores);
    for (uint32_t c = 0; c < cores; ++c) {
      uint32_t qid = static_cast<uint32_t>(static_cast<uint64_t>(c) * nq / cores);
      uint32_t gq = drive_queues_[d][qid];
      core_queue_[d][c] = gq;
    }
    for (uint32_t gq : drive_queues_[d]) {
      queues_[gq].core = effective_core(d, gq, effective_cpu);
      ++vectors_on_core_[queues_[gq].core];
    }
  }

  // numjobs clones each, pinned in order to cpus_allowed (or to the next cores).
  uint32_t next_core = 0;
  for (uint32_t s = 0; s < jobs.size(); ++s) {
    const JobSpec& js = jobs[s];
    for (uint32_t i = 0; i < js.numjobs; ++i) {
      JobClone j;
      j.spec = s;
      j.clone = i;
      j.core = js.cpus_allowed.empty() ? next_core++ % cores : js.cpus_allowed[i % js.cpus_allowed.size()];
      assert(j.core < cores && "cpus_allowed names only the host's cores");
      for (uint32_t d : js.drives) j.queues.push_back(core_queue_[d][j.core]);
      jobs_.push_back(std::move(j));
    }
  }
}

uint32_t Topology::effective_core(uint32_t drive, uint32_t gq, IrqEffectiveCpu rule) const {
  uint32_t best = UINT32_MAX;
  for (uint32_t c = 0; c < cores_; ++c) {
    if (core_queue_[drive][c] != gq) continue;
    if (rule == IrqEffectiveCpu::first_in_mask) return c;
    // matrix_find_best_cpu_managed: the fewest vectors so far, the lowest CPU on a tie.
    if (best == UINT32_MAX || vectors_on_core_[c] < vectors_on_core_[best]) best = c;
  }
  if (best != UINT32_MAX) return best;
  return queues_[gq].qid % cores_;  // more queues than cores: no core submits to it
}

std::vector<DriveShape> Topology::simulated_drives(const Scenario& sc) {
  std::vector<DriveShape> shapes;
  for (const DriveSpec& d : sc.drives) {
    uint32_t nq = std::min(sc.io_queues ? sc.io_queues : sc.host.cores, d.profile.max_io_queues);
    if (d.profile.msix_table_size == 0) {
      shapes.push_back(DriveShape{nq, VectorShape{nq, false}});
      continue;
    }
    // The driver asks for one vector per I/O queue plus the admin queue's, and makes do
    // with what the table gives.
    const uint32_t vecs = std::min(nq + 1, d.profile.msix_table_size);
    shapes.push_back(DriveShape{std::max(vecs - 1, 1u), VectorShape{vecs, false}});
  }
  return shapes;
}

Topology Topology::of(const Scenario& sc) {
  const policy::PolicyInfo* info = policy::find_policy(sc.policy.name);
  assert(info && "the loader validates the policy name");
  return Topology(sc.host.cores, simulated_drives(sc), sc.jobs, *info, sc.host.irq_effective_cpu);
}

}  // namespace nvmesim
