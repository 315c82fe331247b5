// Running a loaded scenario to its results document (docs/results.md is the contract).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/scenario/scenario_load.h"
#include "models/workload/replay_trace.h"
#include "vocab/mode_timeline.h"

namespace nvmesim {
namespace results {
struct RunRecord;
}

struct RunOptions {
  std::function<void(double)> progress;  // fraction of simulated time done; may be empty
  // Perfetto/Chrome trace-event JSON of the run, written here when non-empty.
  std::string trace_path;
  // The per-command trace (docs/trace-format.md, the hw runner's format), same window.
  std::string command_trace_path;
  // Instead of the paths: streams the caller opened (and checks) itself.
  std::ostream* trace_out = nullptr;
  std::ostream* command_trace_out = nullptr;
  // The recorders' caps (records kept; later ones are dropped and counted).
  std::size_t trace_max_events = 4'000'000;
  std::size_t command_trace_max_records = 4'000'000;
  // Its time window in simulated us; from < 0: the start of the measured window;
  // to < 0: 10 ms after `from` (capped at the end of the run).
  int64_t trace_from_us = -1;
  int64_t trace_to_us = -1;
  // Replay (--replay): the trace's commands drive the run instead of the jobs' loop
  // (null: no replay); the run lasts at least until 1 ms after the trace's last recorded
  // time. The per-command differences go to `replay_diff_out` when set.
  const ReplayTrace* replay = nullptr;
  std::ostream* replay_diff_out = nullptr;
  // Threads for a scenario of independent partitions (models/system/partition.h); 0: the
  // machine's cores. The results do not depend on it.
  unsigned threads = 0;
  // The memory limit the scenario was loaded against (--memory-limit). Each partition's
  // System holds the whole machine's state, so no more run at once than fit under it.
  uint64_t memory_limit = limits::kDefaultMemoryLimitBytes;
  // Polling passes certain to find nothing run as one segment (models/workload/empty_poll_fold.h);
  // false runs each as its own, as a reference for tests: the same figures (only the order
  // of events due at the same nanosecond may differ).
  bool fold_empty_polls = true;
  // Mode changes kept per queue or drive (timeline_cap in app/scenario/memory_estimate.h gives the
  // CLI's under its memory limit); later ones are counted in timeline_dropped.
  std::size_t timeline_cap = kModeTimelineCap;
  // Check the results against their invariants (app/results/result_invariants.h) and fail the run
  // (std::logic_error: an internal error) when one breaks. On in Debug builds -- the
  // sanitizer stage and the fuzz targets run every input they load -- and where asked
  // (--check-invariants, the tests).
#ifdef NDEBUG
  bool check_invariants = false;
#else
  bool check_invariants = true;
#endif
  // When set, receives the typed record the results document was written from (what
  // other writers need beyond the document: histograms, a job's reads and writes apart).
  results::RunRecord* record_out = nullptr;
};

struct RunInfo {
  double wall_seconds = 0;
  uint64_t events = 0;
  uint64_t ios = 0;
  uint64_t trace_dropped = 0;  // trace events past the recorder's cap
  uint32_t partitions = 1;     // independent parts of the scenario's machine
  uint32_t threads = 1;        // threads that simulated them
};

// Runs the simulation: each independent partition of the machine as its own System, on up
// to opts.threads threads, merged in global id order -- or, for a scenario of one
// partition or a run with a trace or a replay (they follow all the machine's events in
// one order), the whole machine as one System. The result holds no wall-clock figure:
// the same scenario and seed give byte-identical dump_results() text for any number of
// threads. Wall time and speed go to `info`.
nlohmann::json run_scenario(const LoadedScenario& loaded, const RunOptions& opts = {},
                            RunInfo* info = nullptr);
// Canonical text of a results document (2-space indent, trailing newline).
std::string dump_results(const nlohmann::json& results);

}  // namespace nvmesim
