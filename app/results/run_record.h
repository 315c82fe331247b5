// What one run measured, as typed data: the simulator (app/run/run.cc) and the hw runner
// (hw/runner/results/run_results.cc) fill a RunRecord, and to_json (app/results/run_record.cc) is the one
// writer of the results document (docs/results.md, `nvmesim-results/1`). A figure that
// only one runner has is optional here and absent from the document when unset.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/results/results_json.h"
#include "policies/api/counters.h"
#include "vocab/histogram.h"
#include "vocab/mode_timeline.h"
#include "vocab/time.h"

namespace nvmesim::results {

// Per queue (and per drive for drive policies): at most this many mode changes are kept;
// later ones are counted in timeline_dropped. The simulator caps where it records.
inline constexpr std::size_t kTimelineCap = kModeTimelineCap;

// The figures every level has (metrics_json): volume, latency and interrupts.
struct Figures {
  uint64_t ios = 0;
  uint64_t bytes = 0;
  sim::Histogram latency;
  Interrupts irq;
};

struct TimelineEntry {
  int64_t t_ns = 0;
  std::string from, to, reason;
};

// hw runs (docs/results.md, "hw runs"): what the driver saw, written under the "hw" key
// of a queue, of the drive and of the document. The simulator leaves them unset.

// A queue's driver-level facts over the whole run (not only the window).
struct HwQueueFacts {
  std::optional<uint32_t> vector;  // its MSI-X vector; unset (null) on a polled queue
  uint32_t depth = 0;
  uint64_t completions = 0, errors = 0;
  uint64_t interrupts_held = 0;
  uint64_t sq_doorbells = 0, cq_doorbells = 0;
  uint64_t stray_cqes = 0;
  uint64_t trace_dropped = 0;
};

// The static coalescing a policy set with Set Features 08h, and what the controller said.
struct HwCoalescing {
  uint32_t thr = 0, time_100us = 0;
  bool applied = false;
  std::string status;  // "ok", else the refusal's status
};

// The drive's identity and what its Set Features commands met.
struct HwDriveFacts {
  std::string bdf, model, serial, firmware;
  uint32_t nsid = 0;
  uint32_t block_bytes = 0;
  uint64_t namespace_blocks = 0;
  std::optional<HwCoalescing> coalescing;  // unset (null) when the policy has none
  uint64_t set_features_sent = 0, set_features_refused = 0;  // by a drive policy
  std::string last_refusal;
};

// The job as it ran: the scenario's first, capped to the controller.
struct HwJobFacts {
  uint32_t index = 0;  // which of the scenario's jobs
  uint64_t of = 0;     // of how many
  std::string name, rw;
  uint32_t bs = 0, iodepth = 0, iodepth_batch_submit = 0, iodepth_batch_complete_min = 0;
  uint64_t queues = 0;  // I/O queue pairs
  uint32_t queue_depth = 0;
  uint64_t lba_first = 0, lba_count = 0;
};

// The run's own facts.
struct HwRunFacts {
  HwJobFacts job;
  bool interrupted = false;
  int64_t warmup_ns = 0, wall_ns = 0;
  uint64_t completions = 0, errors = 0;  // over all queues and the whole run
};

struct QueueRecord {
  Figures figures;
  uint32_t queue = 0;  // index in the run's queue list
  uint32_t drive = 0;
  uint32_t qid = 0;    // NVMe numbering: 0 is the admin queue
  uint32_t core = 0;
  bool polled = false;
  std::string policy, final_mode;
  policy::QueueCounters counters;
  std::vector<TimelineEntry> timeline;
  uint64_t timeline_dropped = 0;
  std::map<std::string, double> mode_share;  // adaptive policies: share of the window per mode
  std::optional<HwQueueFacts> hw;  // hw runs only
};

// One direction's share of a job's figures.
struct DirectionFigures {
  uint64_t ios = 0;
  uint64_t bytes = 0;
  sim::Histogram latency;
};

struct JobRecord {
  Figures figures;
  // Reads and writes apart (the simulator; fio's read and write sections). Not written to
  // the results document; unset on hw runs.
  std::optional<std::array<DirectionFigures, 2>> by_direction;
  std::string name;
  uint32_t job = 0;    // index of the job section
  uint32_t clone = 0;  // numjobs clone
  uint32_t core = 0;
  std::vector<uint32_t> queues;
};

// The device model's figures over the window (the simulator only).
struct DeviceModelFigures {
  double iops_ceiling_utilization = 0;
  double unit_utilization = 0;
  double link_utilization = 0;
  double mean_unit_wait_ns = 0;
  uint64_t msix_messages = 0;
  uint64_t msix_held_by_mask = 0;
  uint64_t postings_coalesced = 0;
  uint64_t admin_commands = 0;
  // With the host's platform modelled only (host platform).
  bool platform = false;
  uint32_t socket = 0, root_complex = 0, remapping_unit = 0;  // where it sits
  uint64_t cqe_writes_stalled = 0;    // CQE writes that waited behind a message
  double remapping_busy_ns = 0;       // its share of its root complex's remapping unit
  double socket_busy_ns = 0;          // and of its socket's interrupt delivery
  uint64_t posted_notifications = 0;  // posted MSIs: notifications sent for its vectors
  // With the drive's write path (profile program_ns > 0) only, once the drive had a write.
  struct WritePath {
    double write_amplification = 1;       // the model's, from over-provisioning and utilization
    double measured_write_amplification = 1;  // programmed / host bytes programmed in the window
    uint64_t host_programs = 0, gc_programs = 0, erases = 0;
    uint64_t buffer_stalls = 0;           // writes that waited for buffer space
    double mean_buffer_wait_ns = 0;       // over those writes
    uint64_t reads_behind_writes = 0;     // reads that waited for a program or erase on their target
    double mean_read_wait_behind_writes_ns = 0;
    double flash_write_utilization = 0;   // target time of programs, relocations and erases / (targets x window)
    double gc_utilization = 0;            // of which relocations and erases
  };
  std::optional<WritePath> write_path;
};

struct DriveRecord {
  Figures figures;
  std::string name;
  uint64_t commands = 0;  // commands the drive completed in the window
  std::optional<DeviceModelFigures> model;
  std::vector<TimelineEntry> timeline;  // drive policies; empty otherwise
  uint64_t timeline_dropped = 0;        // entries past the cap: counted, not kept
  std::string final_mode;
  uint64_t decisions = 0;  // drive policies: cycles evaluated by the run's end (not written)
  std::map<std::string, double> mode_share;  // drive policies: share of the window per mode
  std::optional<HwDriveFacts> hw;  // hw runs only
};

// CPU time per execution context over the window.
struct CoreRecord {
  uint32_t core = 0;
  int64_t hardirq_ns = 0, softirq_ns = 0, irq_thread_ns = 0, app_ns = 0;
  int64_t busy_ns() const { return hardirq_ns + softirq_ns + irq_thread_ns + app_ns; }
};

// Which resource was nearest its limit (the simulator only).
struct Limits {
  double busiest_core_utilization = 0;
  double busiest_drive_utilization = 0;
  // With the host's platform modelled only: the busiest remapping unit's and socket
  // interrupt delivery's share of the window.
  std::optional<double> busiest_remapping_unit_utilization;
  std::optional<double> busiest_socket_interrupts_utilization;
};

struct RunRecord {
  std::optional<std::string> source;  // "hw" for drive runs; absent for the simulator
  uint64_t seed = 0;
  nlohmann::json scenario;  // the resolved scenario that ran
  Duration window;
  Figures aggregate;
  std::optional<Limits> limits;
  std::vector<DriveRecord> drives;
  std::vector<QueueRecord> queues;
  std::vector<JobRecord> jobs;
  std::vector<CoreRecord> cores;
  std::vector<std::string> warnings;  // e.g. an adaptive policy that never acted in the window
  std::optional<HwRunFacts> hw;  // hw runs only
};

// The results document of a run.
nlohmann::json to_json(const RunRecord& r);

// What bound the run: "cpu", "drive" or "latency" (nothing near its limit).
std::string bound_by(const Limits& l);

}  // namespace nvmesim::results
