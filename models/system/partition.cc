#include "models/system/partition.h"

#include <cassert>
#include <numeric>

#include "models/host/platform_placement.h"

namespace nvmesim {
namespace {

// Union-find over cores, then drives, then jobs; the root is the lowest id of its set.
class Components {
 public:
  explicit Components(uint32_t n) : up_(n) { std::iota(up_.begin(), up_.end(), 0u); }
  uint32_t root(uint32_t x) {
    while (up_[x] != x) x = up_[x] = up_[up_[x]];
    return x;
  }
  void join(uint32_t a, uint32_t b) {
    a = root(a);
    b = root(b);
    if (a > b) std::swap(a, b);
    up_[b] = a;
  }

 private:
  std::vector<uint32_t> up_;
};

}  // namespace

Partitioning::Partitioning(const Topology& t, bool drive_monitors, std::span<const uint32_t> drive_socket) {
  const uint32_t ncores = t.core_count(), ndrives = t.drive_count();
  const auto njobs = static_cast<uint32_t>(t.jobs().size());
  const auto drive_node = [&](uint32_t d) { return ncores + d; };
  const auto job_node = [&](uint32_t j) { return ncores + ndrives + j; };
  Components c(ncores + ndrives + njobs);
  std::vector<bool> core_used(ncores, false), queue_used(t.queue_count(), false);
  for (uint32_t j = 0; j < njobs; ++j) {
    const Topology::JobClone& jc = t.jobs()[j];
    c.join(job_node(j), jc.core);
    core_used[jc.core] = true;
    for (uint32_t gq : jc.queues) {
      c.join(job_node(j), drive_node(t.queue(gq).drive));
      queue_used[gq] = true;
    }
  }
  // A queue nobody submits to never completes anything, so its vector never fires.
  for (uint32_t gq = 0; gq < t.queue_count(); ++gq) {
    if (!queue_used[gq]) continue;
    c.join(drive_node(t.queue(gq).drive), t.queue(gq).core);
    core_used[t.queue(gq).core] = true;
  }
  for (uint32_t d = 0; d < ndrives; ++d) {
    if (drive_monitors) {
      c.join(drive_node(d), t.monitor_core(d));
      core_used[t.monitor_core(d)] = true;
    }
  }
  // The drives of one socket share its interrupt delivery: one partition.
  std::vector<uint32_t> first_on_socket;
  for (uint32_t d = 0; d < drive_socket.size() && d < ndrives; ++d) {
    const uint32_t s = drive_socket[d];
    if (first_on_socket.size() <= s) first_on_socket.resize(s + 1, UINT32_MAX);
    if (first_on_socket[s] == UINT32_MAX) first_on_socket[s] = d;
    else c.join(drive_node(d), drive_node(first_on_socket[s]));
  }

  // Number the components by their lowest node; an unused core joins the first one.
  std::vector<uint32_t> part_of_root(ncores + ndrives + njobs, UINT32_MAX);
  auto part = [&](uint32_t node) {
    uint32_t& p = part_of_root[c.root(node)];
    if (p == UINT32_MAX) {
      p = static_cast<uint32_t>(parts_.size());
      parts_.emplace_back();
    }
    return p;
  };
  core_part_.assign(ncores, UINT32_MAX);
  for (uint32_t x = 0; x < ncores; ++x)
    if (core_used[x]) core_part_[x] = part(x);
  drive_part_.resize(ndrives);
  for (uint32_t d = 0; d < ndrives; ++d) drive_part_[d] = part(drive_node(d));
  job_part_.resize(njobs);
  for (uint32_t j = 0; j < njobs; ++j) job_part_[j] = part(job_node(j));
  if (parts_.empty()) parts_.emplace_back();  // no drive and no job: the idle cores alone
  for (uint32_t x = 0; x < ncores; ++x) {
    if (core_part_[x] == UINT32_MAX) core_part_[x] = 0;
    parts_[core_part_[x]].cores.push_back(x);
  }
  for (uint32_t d = 0; d < ndrives; ++d) parts_[drive_part_[d]].drives.push_back(d);
  for (uint32_t j = 0; j < njobs; ++j) parts_[job_part_[j]].jobs.push_back(j);
}

Partitioning Partitioning::of(const Scenario& sc, const Topology& topology) {
  const policy::PolicyInfo* info = policy::find_policy(sc.policy.name);
  assert(info && "the loader validates the policy name");
  std::vector<uint32_t> drive_socket;
  if (sc.host.platform.active()) {
    const PlatformPlacement placement(sc);
    for (uint32_t d = 0; d < placement.drive_count(); ++d) drive_socket.push_back(placement.drive(d).socket);
  }
  return Partitioning(topology, info->per_drive(), drive_socket);
}

}  // namespace nvmesim
