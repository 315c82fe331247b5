#include "app/results/run_record.h"

#include <algorithm>

namespace nvmesim::results {
using nlohmann::json;

namespace {

json figures_json(const Figures& f, Duration window) {
  return metrics_json(f.ios, f.bytes, f.latency, f.irq, window);
}

json timeline_json(const std::vector<TimelineEntry>& tl) {
  json out = json::array();
  for (const auto& e : tl) out.push_back(mode_change_json(e.t_ns, e.from, e.to, e.reason));
  return out;
}

// The "hw" sections (hw runs), under the keys the hw runner has always written.
json hw_json(const HwQueueFacts& h) {
  return {{"vector", h.vector ? json(*h.vector) : json(nullptr)},
          {"depth", h.depth},
          {"completions", h.completions},
          {"errors", h.errors},
          {"interrupts_held", h.interrupts_held},
          {"sq_doorbells", h.sq_doorbells},
          {"cq_doorbells", h.cq_doorbells},
          {"stray_cqes", h.stray_cqes},
          {"trace_dropped", h.trace_dropped}};
}

json hw_json(const HwCoalescing& c) {
  return {{"thr", c.thr}, {"time_100us", c.time_100us}, {"applied", c.applied}, {"status", c.status}};
}

json hw_json(const HwDriveFacts& h) {
  return {{"bdf", h.bdf},
          {"model", h.model},
          {"serial", h.serial},
          {"firmware", h.firmware},
          {"nsid", h.nsid},
          {"block_bytes", h.block_bytes},
          {"namespace_blocks", h.namespace_blocks},
          {"coalescing", h.coalescing ? hw_json(*h.coalescing) : json(nullptr)},
          {"set_features_sent", h.set_features_sent},
          {"set_features_refused", h.set_features_refused},
          {"last_refusal", h.last_refusal}};
}

json hw_json(const HwRunFacts& h) {
  const HwJobFacts& j = h.job;
  return {{"job",
           {{"index", j.index},
            {"of", j.of},
            {"name", j.name},
            {"rw", j.rw},
            {"bs", j.bs},
            {"iodepth", j.iodepth},
            {"iodepth_batch_submit", j.iodepth_batch_submit},
            {"iodepth_batch_complete_min", j.iodepth_batch_complete_min},
            {"queues", j.queues},
            {"queue_depth", j.queue_depth},
            {"lba_first", j.lba_first},
            {"lba_count", j.lba_count}}},
          {"interrupted", h.interrupted},
          {"warmup_ns", h.warmup_ns},
          {"wall_ns", h.wall_ns},
          {"completions", h.completions},
          {"errors", h.errors}};
}

json queue_json(const QueueRecord& q, Duration window) {
  json m = figures_json(q.figures, window);
  m["queue"] = q.queue;
  m["drive"] = q.drive;
  m["qid"] = q.qid;
  m["core"] = q.core;
  m["polled"] = q.polled;
  m["policy"] = q.policy;
  m["final_mode"] = q.final_mode;
  m["counters"] = counters_json(q.counters);
  m["mode_timeline"] = timeline_json(q.timeline);
  m["timeline_dropped"] = q.timeline_dropped;
  if (!q.mode_share.empty()) m["mode_share"] = q.mode_share;
  if (q.hw) m["hw"] = hw_json(*q.hw);
  return m;
}

json job_json(const JobRecord& j, Duration window) {
  json m = figures_json(j.figures, window);
  m["name"] = j.name;
  m["job"] = j.job;
  m["clone"] = j.clone;
  m["core"] = j.core;
  m["queues"] = j.queues;
  return m;
}

json drive_json(const DriveRecord& d, Duration window) {
  json m = figures_json(d.figures, window);
  m["name"] = d.name;
  json dev = {{"commands", d.commands}};
  if (d.model) {
    const DeviceModelFigures& x = *d.model;
    dev["iops_ceiling_utilization"] = frac(x.iops_ceiling_utilization);
    dev["unit_utilization"] = frac(x.unit_utilization);
    dev["link_utilization"] = frac(x.link_utilization);
    dev["mean_unit_wait_ns"] = x.mean_unit_wait_ns;
    dev["msix_messages"] = x.msix_messages;
    dev["msix_held_by_mask"] = x.msix_held_by_mask;
    dev["postings_coalesced"] = x.postings_coalesced;
    dev["admin_commands"] = x.admin_commands;
    if (x.write_path) {
      const DeviceModelFigures::WritePath& wp = *x.write_path;
      dev["write_path"] = {{"write_amplification", wp.write_amplification},
                           {"measured_write_amplification", wp.measured_write_amplification},
                           {"host_programs", wp.host_programs},
                           {"gc_programs", wp.gc_programs},
                           {"erases", wp.erases},
                           {"buffer_stalls", wp.buffer_stalls},
                           {"mean_buffer_wait_ns", wp.mean_buffer_wait_ns},
                           {"reads_behind_writes", wp.reads_behind_writes},
                           {"mean_read_wait_behind_writes_ns", wp.mean_read_wait_behind_writes_ns},
                           {"flash_write_utilization", frac(wp.flash_write_utilization)},
                           {"gc_utilization", frac(wp.gc_utilization)}};
    }
    if (x.platform) {
      const auto w = static_cast<double>(window.count_ns());
      dev["platform"] = {{"socket", x.socket},
                         {"root_complex", x.root_complex},
                         {"cqe_writes_behind_msix", x.cqe_writes_stalled},
                         {"remapping_unit_share", frac(x.remapping_busy_ns / w)},  // its own share of the unit
                         {"socket_interrupts_share", frac(x.socket_busy_ns / w)},
                         {"posted_notifications", x.posted_notifications}};
    }
  }
  m["device"] = dev;
  m["mode_timeline"] = timeline_json(d.timeline);
  m["timeline_dropped"] = d.timeline_dropped;
  m["final_mode"] = d.final_mode;
  if (!d.mode_share.empty()) m["mode_share"] = d.mode_share;
  if (d.hw) m["hw"] = hw_json(*d.hw);
  return m;
}

json core_json(const CoreRecord& c, Duration window) {
  const int64_t w = window.count_ns();
  // Idle is what is left of the window; hw threads are not pinned and may use more than
  // one CPU's worth, so it is never negative.
  const int64_t idle = std::max<int64_t>(0, w - c.busy_ns());
  // Fractions from integer ns: they sum to 1 up to the 1e-9 rounding of each.
  auto f = [&](int64_t ns) { return w > 0 ? frac(static_cast<double>(ns) / static_cast<double>(w)) : 0.0; };
  return {{"core", c.core},
          {"fractions",
           {{"hardirq", f(c.hardirq_ns)},
            {"softirq", f(c.softirq_ns)},
            {"irq_thread", f(c.irq_thread_ns)},
            {"app", f(c.app_ns)},
            {"idle", f(idle)}}},
          {"time_ns",
           {{"hardirq", c.hardirq_ns},
            {"softirq", c.softirq_ns},
            {"irq_thread", c.irq_thread_ns},
            {"app", c.app_ns},
            {"idle", idle}}}};
}

template <class T, class F>
json array_of(const std::vector<T>& items, F&& one) {
  json out = json::array();
  for (const auto& x : items) out.push_back(one(x));
  return out;
}

}  // namespace

std::string bound_by(const Limits& l) {
  const double unit = l.busiest_remapping_unit_utilization.value_or(0.0);
  const double socket = l.busiest_socket_interrupts_utilization.value_or(0.0);
  const double others = std::max(l.busiest_core_utilization, l.busiest_drive_utilization);
  if (socket >= 0.97 && socket >= unit && socket >= others) return "socket_interrupts";
  if (unit >= 0.97 && unit >= others) return "remapping_unit";
  if (l.busiest_core_utilization >= 0.97 && l.busiest_core_utilization > l.busiest_drive_utilization)
    return "cpu";
  return l.busiest_drive_utilization >= 0.97 ? "drive" : "latency";
}

json to_json(const RunRecord& r) {
  const Duration w = r.window;
  json out;
  out["format"] = kFormat;
  if (r.source) out["source"] = *r.source;
  out["seed"] = r.seed;
  out["scenario"] = r.scenario;
  out["window_ns"] = w.count_ns();
  json agg = figures_json(r.aggregate, w);
  agg["latency_cdf"] = latency_cdf_json(r.aggregate.latency);
  out["aggregate"] = agg;
  if (r.limits) {
    out["limits"] = {{"busiest_core_utilization", frac(r.limits->busiest_core_utilization)},
                     {"busiest_drive_utilization", frac(r.limits->busiest_drive_utilization)},
                     {"bound_by", bound_by(*r.limits)}};
    if (r.limits->busiest_remapping_unit_utilization)
      out["limits"]["busiest_remapping_unit_utilization"] = frac(*r.limits->busiest_remapping_unit_utilization);
    if (r.limits->busiest_socket_interrupts_utilization)
      out["limits"]["busiest_socket_interrupts_utilization"] = frac(*r.limits->busiest_socket_interrupts_utilization);
  }
  out["drives"] = array_of(r.drives, [&](const DriveRecord& d) { return drive_json(d, w); });
  out["queues"] = array_of(r.queues, [&](const QueueRecord& q) { return queue_json(q, w); });
  out["jobs"] = array_of(r.jobs, [&](const JobRecord& j) { return job_json(j, w); });
  out["cores"] = array_of(r.cores, [&](const CoreRecord& c) { return core_json(c, w); });
  if (!r.warnings.empty()) out["warnings"] = r.warnings;
  if (r.hw) out["hw"] = hw_json(*r.hw);
  return out;
}

}  // namespace nvmesim::results
