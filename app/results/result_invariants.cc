#include "app/results/result_invariants.h"

#include <cmath>
#include <map>
#include <sstream>

namespace nvmesim::results {
namespace {

// A share of the window is a ratio of integers computed in double: it may pass 1 by
// rounding only.
constexpr double kShareSlack = 1e-9;

class Checker {
 public:
  Checker(const RunRecord& r, const Scenario& sc) : r_(r), sc_(sc), w_(static_cast<double>(r.window.count_ns())) {}

  std::vector<std::string> run() {
    if (r_.window.count_ns() <= 0) {
      fail("window_ns", "is " + std::to_string(r_.window.count_ns()) + ", not positive");
      return out_;
    }
    levels();
    conservation();
    drives();
    queues();
    cores();
    limits();
    return out_;
  }

 private:
  template <typename... Args>
  void fail(const std::string& where, const Args&... what) {
    std::ostringstream s;
    s << where << ": ";
    (s << ... << what);
    out_.push_back(s.str());
  }
  void share(const std::string& where, double x) {
    if (!(x >= 0 && x <= 1 + kShareSlack)) fail(where, "is ", x, ", not a share of the window in [0, 1]");
  }

  // One level's own figures: its histogram holds its I/Os, in order.
  void figures(const std::string& where, const Figures& f) {
    const sim::Histogram& h = f.latency;
    if (h.count() != f.ios) fail(where + ".latency_ns", "holds ", h.count(), " I/Os, ios is ", f.ios);
    if ((f.ios == 0) != (f.bytes == 0)) fail(where, "ios ", f.ios, " with bytes ", f.bytes);
    if (h.count() == 0) return;
    if (h.min() < 0) fail(where + ".latency_ns", "a latency of ", h.min(), " ns, negative");
    if (h.mean() < static_cast<double>(h.min()) || h.mean() > static_cast<double>(h.max()))
      fail(where + ".latency_ns.mean", h.mean(), " outside [min ", h.min(), ", max ", h.max(), "]");
    int64_t last = h.min();
    for (const Percentile& p : kPercentiles) {
      const int64_t v = h.quantile(p.q);
      if (v < last || v > h.max()) fail(where + ".latency_ns." + p.key, v, " after ", last, " (max ", h.max(), ")");
      last = std::max(last, v);
    }
  }

  void levels() {
    figures("aggregate", r_.aggregate);
    for (std::size_t i = 0; i < r_.jobs.size(); ++i) figures("jobs[" + std::to_string(i) + "]", r_.jobs[i].figures);
    for (std::size_t i = 0; i < r_.drives.size(); ++i) figures("drives[" + std::to_string(i) + "]", r_.drives[i].figures);
    for (std::size_t i = 0; i < r_.queues.size(); ++i) figures("queues[" + std::to_string(i) + "]", r_.queues[i].figures);
  }

  // The aggregate is the sum of its jobs, of its drives and of its queues (a queue's
  // interrupts count once in the aggregate and its drive, and in every job that used it).
  void conservation() {
    struct Sum {
      uint64_t ios = 0, bytes = 0;
      Interrupts irq;
      void add(const Figures& f) {
        ios += f.ios;
        bytes += f.bytes;
        irq.useful += f.irq.useful;
        irq.spurious += f.irq.spurious;
        irq.masked_lazily += f.irq.masked_lazily;
      }
    };
    Sum jobs, drives, queues;
    for (const JobRecord& j : r_.jobs) jobs.add(j.figures);
    for (const DriveRecord& d : r_.drives) drives.add(d.figures);
    for (const QueueRecord& q : r_.queues) queues.add(q.figures);
    const Figures& a = r_.aggregate;
    auto same = [&](const char* what, const Sum& s, bool irq) {
      if (s.ios != a.ios) fail(std::string("aggregate.ios"), a.ios, " but its ", what, " sum to ", s.ios);
      if (s.bytes != a.bytes) fail(std::string("aggregate.bytes"), a.bytes, " but its ", what, " sum to ", s.bytes);
      if (irq && (s.irq.useful != a.irq.useful || s.irq.spurious != a.irq.spurious ||
                  s.irq.masked_lazily != a.irq.masked_lazily))
        fail(std::string("aggregate.interrupts"), "total ", a.irq.total(), " but its ", what, " sum to ", s.irq.total());
    };
    same("jobs", jobs, false);
    same("drives", drives, true);
    same("queues", queues, true);
    // A job's interrupts are those of the queues it used.
    std::map<uint32_t, const QueueRecord*> by_index;
    for (const QueueRecord& q : r_.queues) by_index[q.queue] = &q;
    for (std::size_t i = 0; i < r_.jobs.size(); ++i) {
      uint64_t total = 0;
      for (uint32_t q : r_.jobs[i].queues)
        if (auto it = by_index.find(q); it != by_index.end()) total += it->second->figures.irq.total();
      if (total != r_.jobs[i].figures.irq.total())
        fail("jobs[" + std::to_string(i) + "].interrupts", "total ", r_.jobs[i].figures.irq.total(),
             " but its queues' sum to ", total);
    }
  }

  void mode_shares(const std::string& where, const std::map<std::string, double>& shares) {
    if (shares.empty()) return;
    double sum = 0;
    for (const auto& [mode, x] : shares) {
      share(where + ".mode_share." + mode, x);
      sum += x;
    }
    if (std::fabs(sum - 1) > 1e-6) fail(where + ".mode_share", "sums to ", sum, ", not 1");
  }

  void timeline(const std::string& where, const std::vector<TimelineEntry>& t) {
    if (t.size() > kTimelineCap) fail(where + ".mode_timeline", t.size(), " entries, over the cap of ", kTimelineCap);
    const int64_t end = (sc_.warmup + sc_.duration).count_ns();
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i].t_ns < 0 || t[i].t_ns > end) fail(where + ".mode_timeline[" + std::to_string(i) + "]", "at ", t[i].t_ns, " ns, outside the run");
      if (i > 0 && t[i].t_ns < t[i - 1].t_ns)
        fail(where + ".mode_timeline[" + std::to_string(i) + "]", "at ", t[i].t_ns, " ns, before the entry ahead of it");
    }
  }

  // A drive completes in the window what its front end fetched there and what its queues
  // held when the window began; the reaps in the window differ from its completions
  // there by at most what its queues hold.
  void drives() {
    std::vector<uint64_t> room(r_.drives.size(), 0);
    for (const QueueRecord& q : r_.queues)
      if (q.drive < room.size()) room[q.drive] += sc_.queue_depth;
      else fail("queues[" + std::to_string(q.queue) + "].drive", q.drive, ", no such drive");
    for (std::size_t d = 0; d < r_.drives.size(); ++d) {
      const DriveRecord& dr = r_.drives[d];
      const std::string at = "drives[" + std::to_string(d) + "]";
      mode_shares(at, dr.mode_share);
      timeline(at, dr.timeline);
      const uint64_t gap = dr.commands > dr.figures.ios ? dr.commands - dr.figures.ios : dr.figures.ios - dr.commands;
      if (gap > room[d])
        fail(at, "reaped ", dr.figures.ios, " I/Os and completed ", dr.commands, " commands in the window: ", gap,
             " apart, more than its queues hold (", room[d], ")");
      if (!dr.model || d >= sc_.drives.size()) continue;
      const DeviceModelFigures& m = *dr.model;
      share(at + ".device.iops_ceiling_utilization", m.iops_ceiling_utilization);
      share(at + ".device.unit_utilization", m.unit_utilization);
      share(at + ".device.link_utilization", m.link_utilization);
      if (!(m.mean_unit_wait_ns >= 0)) fail(at + ".device.mean_unit_wait_ns", m.mean_unit_wait_ns, ", negative");
      if (m.write_path) {  // reads and write-side operations hold a target one at a time
        const DeviceModelFigures::WritePath& wp = *m.write_path;
        share(at + ".device.write_path.flash_write_utilization", wp.flash_write_utilization);
        share(at + ".device.write_path.gc_utilization", wp.gc_utilization);
        if (wp.gc_utilization > wp.flash_write_utilization + 1e-9 || m.unit_utilization + wp.flash_write_utilization > 1 + 1e-9)
          fail(at + ".device.write_path", "targets held more than the window: reads ", m.unit_utilization, ", writes ",
               wp.flash_write_utilization, ", of which GC ", wp.gc_utilization);
        if (!(wp.measured_write_amplification >= 1))
          fail(at + ".device.write_path.measured_write_amplification", wp.measured_write_amplification, ", below 1");
      }
      if (m.remapping_busy_ns < 0 || m.socket_busy_ns < 0)
        fail(at + ".device.platform", "a negative busy time (", m.remapping_busy_ns, ", ", m.socket_busy_ns, ")");
      const double iops_max = sc_.drives[d].profile.iops_max;
      if (iops_max > 0 && static_cast<double>(dr.commands) > iops_max * w_ / 1e9 + 1 + static_cast<double>(room[d]))
        fail(at + ".device.commands", dr.commands, " in the window, over its ceiling's ", iops_max * w_ / 1e9,
             " plus what its queues hold (", room[d], ")");
    }
  }

  void queues() {
    for (std::size_t i = 0; i < r_.queues.size(); ++i) {
      const std::string at = "queues[" + std::to_string(i) + "]";
      mode_shares(at, r_.queues[i].mode_share);
      timeline(at, r_.queues[i].timeline);
      if (i > 0 && r_.queues[i].queue <= r_.queues[i - 1].queue)
        fail(at + ".queue", r_.queues[i].queue, " after ", r_.queues[i - 1].queue, ": not in index order");
    }
  }

  // Each core's contexts share its time once: none negative, together at most the window.
  void cores() {
    for (std::size_t i = 0; i < r_.cores.size(); ++i) {
      const CoreRecord& c = r_.cores[i];
      const std::string at = "cores[" + std::to_string(i) + "].time_ns";
      if (c.hardirq_ns < 0 || c.softirq_ns < 0 || c.irq_thread_ns < 0 || c.app_ns < 0)
        fail(at, "a negative context time (", c.hardirq_ns, ", ", c.softirq_ns, ", ", c.irq_thread_ns, ", ", c.app_ns, ")");
      if (c.busy_ns() > r_.window.count_ns())
        fail(at, "busy ", c.busy_ns(), " ns in a window of ", r_.window.count_ns());
    }
  }

  void limits() {
    if (!r_.limits) return;
    const Limits& l = *r_.limits;
    share("limits.busiest_core_utilization", l.busiest_core_utilization);
    share("limits.busiest_drive_utilization", l.busiest_drive_utilization);
    if (l.busiest_remapping_unit_utilization)
      share("limits.busiest_remapping_unit_utilization", *l.busiest_remapping_unit_utilization);
    if (l.busiest_socket_interrupts_utilization)
      share("limits.busiest_socket_interrupts_utilization", *l.busiest_socket_interrupts_utilization);
  }

  const RunRecord& r_;
  const Scenario& sc_;
  double w_;
  std::vector<std::string> out_;
};

}  // namespace

std::vector<std::string> invariant_violations(const RunRecord& r, const Scenario& sc) { return Checker(r, sc).run(); }

}  // namespace nvmesim::results
