// What `nvmesim-hw run` writes: the results document in the simulator's layout
// (docs/results.md, "hw runs"; this runner fills the record, app/results/run_record.cc writes
// it) and the per-command trace (docs/trace-format.md).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/results/run_record.h"
#include "app/scenario/scenario_load.h"
#include "hw/runner/env/drive_env.h"
#include "hw/runner/io/lba_range.h"
#include "hw/runner/run/drive_session.h"
#include "hw/runner/run/lane.h"
#include "hw/runner/run/run_on_device.h"
#include "policies/registry.h"
#include "vocab/command_trace.h"
#include "vocab/time.h"

namespace nvmesim::hw {

// How the run went, as the runner knows it at its end: what write_results puts into the
// record (results::HwRunFacts, HwDriveFacts) next to what it reads from the lanes.
struct RunOutcome {
  uint32_t iodepth;
  uint32_t queue_depth;
  LbaRange range;
  bool interrupted;
  int64_t wall_ns;
  std::string drive_mode;                            // the drive policy's final mode; "" for per-queue policies
  std::optional<results::HwCoalescing> coalescing;   // the static coalescing set, if any
  Duration window;                                   // the measured window as run
};

// Writes the results to o.results_path (else to `log`) and a summary line to `log`.
void write_results(const LoadedScenario& loaded, const HwRunOptions& o, DriveSession& s,
                   const HwDriveEnv& drive_env, const std::vector<Lane>& lanes,
                   const std::vector<policy::AnyQueuePolicy>& policies, const RunOutcome& f,
                   std::ostream& log);

// The trace rows of all queues and of the drive policy, in time order.
void write_trace(const std::string& path, const std::vector<Lane>& lanes,
                 const std::vector<trace::ModeRecord>& drive_modes);
// The same to a stream, from the queues' recorders (in queue order). At equal times:
// interrupts, commands, mode changes, then inflight rows (by queue, then cid).
void write_trace(std::ostream& out, const std::vector<const QueueRecorder*>& queues,
                 const std::vector<trace::ModeRecord>& drive_modes);

}  // namespace nvmesim::hw
