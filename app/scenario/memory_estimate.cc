#include "app/scenario/memory_estimate.h"

#include <algorithm>
#include <limits>
#include <variant>

#include "app/input/input_limits.h"
#include "models/device/device.h"
#include "models/host/cpu_core.h"
#include "models/host/host_queue.h"
#include "models/host/queue_memory.h"
#include "models/system/command_trace_log.h"
#include "models/workload/job.h"
#include "models/workload/request.h"
#include "policies/registry.h"
#include "sim/event_queue.h"
#include "vocab/histogram.h"

namespace nvmesim {
namespace {

// Saturating: the estimate of an absurd scenario must not wrap to a small number.
uint64_t mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}
uint64_t add(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

// One latency histogram's buckets (sim::Histogram covers ns up to 2^63).
const uint64_t kHistogramBytes = (sim::Histogram::bucket_of(std::numeric_limits<int64_t>::max()) + 1) * sizeof(uint64_t);
// What a request costs beyond its own struct: its id in a job's free list and ready
// queue, one pending event, and its place in the device's posting or unit queue.
const uint64_t kPerRequest = sizeof(Request) + 2 * sizeof(uint32_t) + sizeof(sim::Event) + 16;
// Per queue entry: SQ slot, CQ entry, its id in the drained list, the device's posting.
const uint64_t kPerQueueSlot = sizeof(uint32_t) + sizeof(CqEntry) + sizeof(uint32_t) + 16;
// The results document's share of a queue, job clone or drive (JSON objects, timelines).
constexpr uint64_t kResultsPerObject = 8 << 10;
// A record in the trace recorders (sim::TraceRecorder's event: phase, ids, times, name,
// value; CommandTraceLog's row: time, order and the record variant), times 3 for the
// vector's growth (old and new arrays while it doubles).
constexpr uint64_t kTraceEventBytes = 3 * 56;
const uint64_t kCommandRecordBytes =
    3 * (16 + sizeof(std::variant<trace::CommandRecord, trace::IrqRecord, trace::ModeRecord>));
// The trace buffers at their smallest useful size: what the estimate counts of them.
const uint64_t kMinTraceBufferBytes = kMinTraceRecords * kTraceEventBytes;
const uint64_t kMinCommandBufferBytes = kMinTraceRecords * kCommandRecordBytes;
// A mode change kept: the policy's record (times, modes, a reason of ~80 characters), the
// results' copy, its JSON object and its text. Measured: 1.0 KB of peak RSS per entry
// (watermark with max_loops=1 on the default scenario, 8k vs 31k entries: +23 MB).
constexpr uint64_t kTimelineEntryBytes = 1024;

// The queues and drives that keep a mode timeline: every queue of a per-queue adaptive
// policy (it needs a dedicated vector), every drive of a drive policy.
uint64_t timeline_owners(const Scenario& sc, uint64_t queues) {
  const policy::PolicyInfo* p = policy::find_policy(sc.policy.name);
  if (!p) return 0;
  if (p->per_drive()) return sc.drives.size();
  return p->eligibility == policy::Eligibility::dedicated_vector ? queues : 0;
}

// The I/O queue pairs the jobs can use: one per core (or io_queues) up to each drive's
// maximum, and no more than one per job clone and drive it targets.
uint64_t queue_count(const Scenario& sc) {
  uint64_t n = 0, used = 0;
  for (const auto& d : sc.drives)
    n = add(n, std::min<uint64_t>(sc.io_queues ? sc.io_queues : sc.host.cores, d.profile.max_io_queues));
  for (const JobSpec& j : sc.jobs) used = add(used, mul(j.numjobs, std::max<uint64_t>(j.drives.size(), 1)));
  return std::min(n, used);
}

}  // namespace

uint64_t MemoryEstimate::total() const {
  uint64_t t = 0;
  for (const auto& p : parts) t = add(t, p.bytes);
  return t;
}

MemoryEstimate estimate_memory(const Scenario& sc, const Recording& rec) {
  MemoryEstimate e;
  const uint64_t cores = sc.host.cores;
  // Requests: iodepth x numjobs per job; the path is the job that needs most.
  uint64_t requests = 0, clones_bytes = 0, most_requests = 0, most_clones = 0;
  std::size_t req_job = 0, clone_job = 0;
  for (std::size_t i = 0; i < sc.jobs.size(); ++i) {
    const JobSpec& js = sc.jobs[i];
    uint64_t r = mul(js.iodepth, js.numjobs);
    requests = add(requests, r);
    if (r > most_requests) most_requests = r, req_job = i;
    // Each clone: its Job, its reads' and writes' histograms in the results, and per
    // target drive a latency histogram per direction and counters.
    uint64_t per_clone = add(add(sizeof(Job) + 2 * kHistogramBytes, kResultsPerObject),
                             mul(js.drives.size(), add(2 * kHistogramBytes, 2 * sizeof(uint64_t) + sizeof(uint32_t))));
    uint64_t c = mul(js.numjobs, per_clone);
    clones_bytes = add(clones_bytes, c);
    if (c > most_clones) most_clones = c, clone_job = i;
  }
  e.requests = requests;
  // Queues: per drive, one pair per core (or io_queues) up to the drive's maximum.
  uint64_t queue_bytes = 0, drive_bytes = 0;
  for (const auto& d : sc.drives) {
    uint64_t nq = std::min<uint64_t>(sc.io_queues ? sc.io_queues : cores, d.profile.max_io_queues);
    uint64_t depth = std::min(sc.queue_depth, d.profile.max_queue_depth);
    // A queue: its host and device state, its entries, and its latency histogram and
    // results object when the results are gathered.
    uint64_t per_queue = add(add(sizeof(HostQueue), 256 + kHistogramBytes + kResultsPerObject), mul(depth, kPerQueueSlot));
    queue_bytes = add(queue_bytes, mul(nq, per_queue));
    // A drive: the device, its core -> queue map, its histogram and results object.
    drive_bytes = add(drive_bytes, add(add(sizeof(Device), kHistogramBytes + kResultsPerObject), mul(cores, 2 * sizeof(uint32_t))));
    // With media_read, when each flash target is free (Device::target_free_).
    if (d.profile.media_read > Duration::zero()) drive_bytes = add(drive_bytes, mul(d.profile.units, sizeof(Time)));
    // With the write path, each target's last operation's end and its place among the free
    // ones (FlashWrites::op_end_, free_).
    if (d.profile.write_path() && d.profile.media_read > Duration::zero())
      drive_bytes = add(drive_bytes, mul(d.profile.units, sizeof(Time) + sizeof(uint32_t)));
  }
  const std::string requests_path = sc.jobs.empty() ? "/jobs" : "/jobs/" + std::to_string(req_job) + "/iodepth";
  e.parts.push_back({"requests", requests_path, mul(requests, kPerRequest)});
  // The times only a command trace or a replay reads, in a pool beside the requests
  // (System::run allocates it then).
  if (rec.request_times())
    e.parts.push_back({std::string("request times for ") + (rec.command_trace ? "--command-trace" : "--replay"),
                       requests_path, mul(requests, sizeof(RequestTimes))});
  e.parts.push_back({"queue memory", "/queue_depth", queue_bytes});
  e.parts.push_back({"drives", "/drives", drive_bytes});
  e.parts.push_back({"job clones", sc.jobs.empty() ? "/jobs" : "/jobs/" + std::to_string(clone_job) + "/numjobs", clones_bytes});
  e.parts.push_back({"cores", "/host/cores", mul(cores, sizeof(Core) + 4 * sizeof(Task) + kResultsPerObject)});
  const uint64_t owners = timeline_owners(sc, queue_count(sc));
  if (owners) e.parts.push_back({"mode timelines", "/policy/name", mul(owners, kMinTimelineEntries * kTimelineEntryBytes)});
  if (rec.trace) e.parts.push_back({"trace buffer", "--trace", kMinTraceBufferBytes});
  if (rec.command_trace) e.parts.push_back({"command trace buffer", "--command-trace", kMinCommandBufferBytes});
  return e;
}

std::optional<InputError> check_memory(const Scenario& sc, uint64_t limit_bytes, const Recording& rec) {
  MemoryEstimate e = estimate_memory(sc, rec);
  if (e.requests > limits::kMaxRequests)
    return InputError{e.parts[0].path, std::to_string(e.requests) + " requests in flight (iodepth x numjobs over all jobs) is more than the model's " +
                                           std::to_string(limits::kMaxRequests)};
  uint64_t total = e.total();
  if (total <= limit_bytes) return std::nullopt;
  const MemoryPart& big = *std::max_element(e.parts.begin(), e.parts.end(),
                                            [](const MemoryPart& a, const MemoryPart& b) { return a.bytes < b.bytes; });
  std::string detail;
  for (const auto& p : e.parts)
    if (p.bytes) detail += (detail.empty() ? "" : ", ") + p.what + " " + std::to_string(p.bytes);
  return InputError{big.path, "the run would need about " + std::to_string(total) + " bytes (" + detail +
                                  "), more than the memory limit of " + std::to_string(limit_bytes) +
                                  " bytes (--memory-limit); " + big.what + " is the largest part"};
}

}  // namespace nvmesim

namespace nvmesim {

TraceCaps trace_caps(const Scenario& sc, uint64_t limit_bytes, const Recording& rec) {
  TraceCaps caps;
  // The rest of the run, without the buffers being sized here (the request times stay).
  uint64_t rest = estimate_memory(sc, rec).total();
  rest -= std::min(rest, (rec.trace ? kMinTraceBufferBytes : 0) + (rec.command_trace ? kMinCommandBufferBytes : 0));
  uint64_t spare = limit_bytes > rest ? limit_bytes - rest : 0;
  const bool timelines = timeline_owners(sc, queue_count(sc)) > 0;
  uint64_t share = spare / std::max(1, int{rec.trace} + int{rec.command_trace} + int{timelines});  // split evenly
  auto fit = [&](uint64_t record_bytes) {
    return static_cast<std::size_t>(std::clamp<uint64_t>(share / record_bytes, kMinTraceRecords, kMaxTraceRecords));
  };
  caps.trace_events = fit(kTraceEventBytes);
  caps.command_records = fit(kCommandRecordBytes);
  return caps;
}

std::size_t timeline_cap(const Scenario& sc, uint64_t limit_bytes, const Recording& rec) {
  const uint64_t owners = timeline_owners(sc, queue_count(sc));
  if (owners == 0) return kModeTimelineCap;
  const uint64_t rest = estimate_memory(sc, rec).total();  // the least already counted
  const uint64_t spare = limit_bytes > rest ? limit_bytes - rest : 0;
  const uint64_t share = spare / static_cast<uint64_t>(1 + int{rec.trace} + int{rec.command_trace});
  const uint64_t more = share / mul(owners, kTimelineEntryBytes);
  return static_cast<std::size_t>(std::min<uint64_t>(add(kMinTimelineEntries, more), kModeTimelineCap));
}

}  // namespace nvmesim
