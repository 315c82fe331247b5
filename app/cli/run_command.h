// `nvmesim run` and `nvmesim validate`: their options, then load the scenario (and a
// --replay trace), open every output before the run, run, write, and report.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace nvmesim::cli {

struct RunArgs {
  std::string scenario, out_path, trace_path, command_trace_path, trace_window, seed, memory_limit, threads;
  std::vector<std::string> sets;
  std::string duration_us, warmup_us;  // --duration-us / --warmup-us: overrides after --set
  std::string format = "results";  // -o's layout: results (docs/results.md) or fio-json
  bool quiet = false;
  bool check_invariants = false;
  // --replay FILE [--replay-service] [--replay-diff FILE] [--replay-drive NAME] [--replay-block-bytes N]
  std::string replay_path, replay_diff_path, replay_drive, replay_block_bytes;
  bool replay_service = false;
};

// The options `run` and `validate` share (SCENARIO, --set, the window, --seed,
// --memory-limit), then those of `run` alone.
void add_scenario_options(CLI::App* sub, RunArgs& ra);
void add_run_options(CLI::App* run, RunArgs& ra);

// Loads the scenario and runs it (or, validating, says that it is valid); the exit status.
int run_or_validate(bool validate, const RunArgs& a);

}  // namespace nvmesim::cli
