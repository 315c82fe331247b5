#include "app/run/system_record.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "models/device/write_amplification.h"
#include "models/host/platform_placement.h"

namespace nvmesim {
namespace {

using results::Figures;

results::TimelineEntry entry_of(const ModeChange& e) { return {e.time.ns(), e.from, e.to, e.reason}; }

// The job clones' records; per queue, the latency and volume of the jobs that used it
// (into q_fig).
void add_jobs(const System& sys, results::RunRecord& r, std::vector<Figures>& q_fig) {
  for (const Job& j : sys.jobs()) {
    results::JobRecord jr;
    jr.by_direction.emplace();
    for (std::size_t s = 0; s < j.queues.size(); ++s) {
      const uint32_t gq = j.queues[s];
      for (std::size_t d = 0; d < 2; ++d) {  // the job keeps one histogram per target and direction
        jr.figures.latency.merge(j.latency[2 * s + d]);
        q_fig[gq].latency.merge(j.latency[2 * s + d]);
        (*jr.by_direction)[d].latency.merge(j.latency[2 * s + d]);
      }
      q_fig[gq].ios += j.ios[s];
      q_fig[gq].bytes += j.bytes[s];
      jr.figures.ios += j.ios[s];
      jr.figures.bytes += j.bytes[s];
      jr.figures.irq.add(sys.queue_counters(gq), sys.queue_lazy_masked(gq));
    }
    for (std::size_t d = 0; d < 2; ++d) {
      (*jr.by_direction)[d].ios = j.ios_by_dir[d];
      (*jr.by_direction)[d].bytes = j.bytes_by_dir[d];
    }
    jr.name = j.spec->name;
    jr.job = j.spec_index;
    jr.clone = j.clone;
    jr.core = j.core;
    jr.queues = j.queues;
    r.jobs.push_back(std::move(jr));
  }
}

// The queues' records (used queues only); per drive, the figures of its queues (d_fig).
void add_queues(const System& sys, results::RunRecord& r, std::vector<Figures>& q_fig, std::vector<Figures>& d_fig) {
  const auto& queues = sys.queues();
  for (std::size_t gq = 0; gq < queues.size(); ++gq) {
    const HostQueue& q = *queues[gq];
    const policy::QueueCounters c = sys.queue_counters(static_cast<uint32_t>(gq));
    const uint64_t lazy = sys.queue_lazy_masked(static_cast<uint32_t>(gq));
    q_fig[gq].irq.add(c, lazy);
    d_fig[q.drive].irq.add(c, lazy);
    r.aggregate.irq.add(c, lazy);
    d_fig[q.drive].latency.merge(q_fig[gq].latency);
    d_fig[q.drive].ios += q_fig[gq].ios;
    d_fig[q.drive].bytes += q_fig[gq].bytes;
    if (q.submitted == 0 && c.completions == 0 && q_fig[gq].irq.total() == 0) continue;  // unused queue
    results::QueueRecord qr;
    qr.figures = std::move(q_fig[gq]);
    qr.queue = static_cast<uint32_t>(gq);
    qr.drive = q.drive;
    qr.qid = q.qid + 1;  // q.qid counts I/O queues from 0
    qr.core = q.core;
    qr.polled = q.polled;
    qr.policy = std::string(policy::policy_name(q.policy));
    qr.final_mode = std::visit([](const auto& p) { return std::string(p.mode()); }, q.policy);
    qr.counters = c;
    for (const auto& e : q.timeline) qr.timeline.push_back(entry_of(e));
    qr.timeline_dropped = q.timeline_dropped;
    r.queues.push_back(std::move(qr));
  }
}

// A drive's write path over the window (DeviceStats::writes).
results::DeviceModelFigures::WritePath write_path_figures(const FlashWriteStats& s, double wa, uint32_t targets, double w) {
  results::DeviceModelFigures::WritePath f;
  const auto mean = [](Duration sum, uint64_t n) { return n ? static_cast<double>(sum.count_ns()) / static_cast<double>(n) : 0.0; };
  f.write_amplification = wa;
  if (s.host_bytes_programmed > 0)
    f.measured_write_amplification = static_cast<double>(s.host_bytes_programmed + s.gc_bytes_programmed) /
                                     static_cast<double>(s.host_bytes_programmed);
  f.host_programs = s.host_programs;
  f.gc_programs = s.gc_programs;
  f.erases = s.erases;
  f.buffer_stalls = s.buffer_stalls;
  f.mean_buffer_wait_ns = mean(s.buffer_wait, s.buffer_stalls);
  f.reads_behind_writes = s.reads_behind_writes;
  f.mean_read_wait_behind_writes_ns = mean(s.read_wait_behind_writes, s.reads_behind_writes);
  f.flash_write_utilization = static_cast<double>(s.flash_busy_ns) / (static_cast<double>(targets) * w);
  f.gc_utilization = static_cast<double>(s.gc_busy_ns) / (static_cast<double>(targets) * w);
  return f;
}

// The drives' and cores' records.
void add_drives_and_cores(const System& sys, const Scenario& sc, results::RunRecord& r, std::vector<Figures>& d_fig) {
  const Duration window = sys.window();
  const auto w = static_cast<double>(window.count_ns());
  const PlatformPlacement placement(sc);
  for (std::size_t d = 0; d < sc.drives.size(); ++d) {
    const DeviceProfile& p = sc.drives[d].profile;
    const DeviceStats s = sys.device_stats(static_cast<uint32_t>(d));
    results::DriveRecord dr;
    dr.figures = std::move(d_fig[d]);
    dr.name = sc.drives[d].name;
    dr.commands = s.commands;
    results::DeviceModelFigures m;
    m.iops_ceiling_utilization = static_cast<double>(s.front_end_busy_ps) / (1e3 * w);
    m.unit_utilization = static_cast<double>(s.unit_busy.count_ns()) / (static_cast<double>(p.units) * w);
    m.link_utilization = static_cast<double>(s.link_busy_ps) / (2e3 * w);
    m.mean_unit_wait_ns = s.waits ? static_cast<double>(s.queue_wait.count_ns()) / static_cast<double>(s.waits) : 0.0;
    m.msix_messages = s.msix_messages;
    m.msix_held_by_mask = s.msix_held;
    m.postings_coalesced = s.coalesced;
    m.admin_commands = s.admin_commands;
    m.platform = sc.host.platform.active();
    if (m.platform) {
      const PlatformPlacement::Drive& at = placement.drive(static_cast<uint32_t>(d));
      m.socket = at.socket;
      m.root_complex = at.root_complex;
      m.remapping_unit = at.unit;
    }
    m.cqe_writes_stalled = s.cqe_writes_stalled;
    m.remapping_busy_ns = static_cast<double>(s.remapping_busy_ns);
    m.socket_busy_ns = static_cast<double>(s.socket_busy_ns);
    m.posted_notifications = s.posted_notifications;
    if (p.write_path() && s.writes.written) m.write_path = write_path_figures(s.writes, p.state == DriveState::steady ? greedy_write_amplification(p.over_provisioning, p.utilization) : 1.0,
                                                          p.units, w);
    dr.model = m;
    // Drive-level policy state (coalesce_adaptive); empty for per-queue policies.
    for (const auto& e : sys.drive_timeline(static_cast<uint32_t>(d))) dr.timeline.push_back(entry_of(e));
    dr.timeline_dropped = sys.drive_timeline_dropped(static_cast<uint32_t>(d));
    dr.final_mode = sys.drive_mode(static_cast<uint32_t>(d));
    dr.decisions = sys.drive_decisions(static_cast<uint32_t>(d));
    r.drives.push_back(std::move(dr));
  }

  for (uint32_t c = 0; c < sys.core_count(); ++c) {
    const CoreTimes t = sys.core_times(c);
    r.cores.push_back({c, t.busy[0].count_ns(), t.busy[1].count_ns(), t.busy[2].count_ns(), t.busy[3].count_ns()});
  }
}

}  // namespace

results::RunRecord measured_by(const System& sys) {
  results::RunRecord r;
  r.window = sys.window();
  std::vector<Figures> q_fig(sys.queues().size()), d_fig(sys.scenario().drives.size());
  add_jobs(sys, r, q_fig);
  add_queues(sys, r, q_fig, d_fig);
  add_drives_and_cores(sys, sys.scenario(), r, d_fig);
  return r;
}

}  // namespace nvmesim
