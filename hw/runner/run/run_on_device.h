// `nvmesim-hw run`: the scenario's first job on a real controller with the scenario's
// policy, through the policy hooks on real execution contexts. Writes the results JSON
// in the simulator's layout (docs/results.md, "hw runs") and the per-command trace
// (docs/trace-format.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "app/scenario/scenario_load.h"
#include "hw/runner/io/lba_range.h"
#include "vocab/time.h"

namespace nvmesim::hw {

struct HwRunOptions {
  std::string bdf;
  uint32_t nsid = 1;
  std::optional<LbaRange> allow_write;  // writes only with this; all I/O then stays inside it
  std::string results_path;             // "" : print the results to the log stream
  std::string trace_path;               // "" : no trace
  Duration io_timeout = Duration::s(10);
  Duration stop_grace = Duration::s(2);  // after a stop, wait this long for inflight I/O
  bool hw_mask = true;                   // see HwQueueEnv::hold_interrupt
  const std::atomic<bool>* stop = nullptr;  // set by SIGINT/SIGTERM
};

// Exit codes of the hw commands.
namespace exit_code {
constexpr int kOk = 0;
constexpr int kError = 1;
constexpr int kUsage = 2;
constexpr int kRefused = 3;     // safety refusal: not vfio-pci, writes not allowed, ...
constexpr int kFatal = 4;       // controller fatal status
constexpr int kTimeout = 5;     // a command timed out
constexpr int kInterrupted = 130;
}  // namespace exit_code

// `loaded` comes from load_scenario_file (app/scenario/scenario_load.h): its resolved document
// goes into the results as the simulator's does.
int run_on_device(const LoadedScenario& loaded, const HwRunOptions& opts, std::ostream& log);

}  // namespace nvmesim::hw
