#include "app/cli/run_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <variant>

#include "app/cli/cli_options.h"
#include "app/replay/replay_load.h"
#include "app/results/fio_json.h"
#include "app/results/output_file.h"
#include "app/run/run.h"
#include "app/run/summary.h"
#include "app/scenario/memory_estimate.h"
#include "app/scenario/scenario_load.h"

namespace nvmesim::cli {
namespace {

// The replay's diff beside -o: results.json -> results.replay-diff.csv.
std::string default_replay_diff(const std::string& out_path) {
  if (out_path.empty()) return {};
  std::string base = out_path;
  if (base.size() > 5 && base.compare(base.size() - 5, 5, ".json") == 0) base.resize(base.size() - 5);
  return base + ".replay-diff.csv";
}

nvmesim::LoadOptions load_options(const RunArgs& a) {
  nvmesim::LoadOptions opts;
  opts.overrides = a.sets;
  // As ab's options of the same names: the last word on the window, after every --set.
  if (!a.duration_us.empty()) opts.overrides.push_back("duration_us=" + a.duration_us);
  if (!a.warmup_us.empty()) opts.overrides.push_back("warmup_us=" + a.warmup_us);
  if (!a.seed.empty()) opts.seed = parse_seed(a.seed);
  if (!a.memory_limit.empty()) opts.memory_limit = *parse_memory_limit(a.memory_limit);
  opts.recording.trace = !a.trace_path.empty();
  opts.recording.command_trace = !a.command_trace_path.empty();
  opts.recording.replay = !a.replay_path.empty();
  return opts;
}

// --replay FILE read against the loaded scenario (none without --replay); the --replay-*
// options are bad input without it.
std::variant<std::optional<nvmesim::ReplayTrace>, nvmesim::InputError> load_replay_option(
    const RunArgs& a, const nvmesim::LoadedScenario& ls) {
  if (a.replay_path.empty()) {
    for (auto [given, option] : {std::pair{a.replay_service, "--replay-service"},
                                 std::pair{!a.replay_diff_path.empty(), "--replay-diff"},
                                 std::pair{!a.replay_drive.empty(), "--replay-drive"},
                                 std::pair{!a.replay_block_bytes.empty(), "--replay-block-bytes"}})
      if (given) return nvmesim::InputError{option, "needs --replay FILE"};
    return std::optional<nvmesim::ReplayTrace>{};
  }
  nvmesim::ReplayLoadOptions ro;
  ro.path = a.replay_path;
  ro.service = a.replay_service;
  ro.drive = a.replay_drive;
  if (!a.replay_block_bytes.empty()) ro.block_bytes = static_cast<uint32_t>(*parse_block_bytes(a.replay_block_bytes));
  auto r = nvmesim::load_replay(ro, ls.scenario);
  if (auto* e = std::get_if<nvmesim::InputError>(&r)) return *e;
  return std::optional<nvmesim::ReplayTrace>{std::move(std::get<nvmesim::ReplayTrace>(r))};
}

// The files a run writes. Every one is opened (as a temporary beside its target, see
// app/results/output_file.h) before the run: an unwritable path is bad input, found now and not
// after minutes of simulation, and no target is touched until the run has succeeded.
class RunOutputs {
 public:
  // Opens each output given and points the run's trace streams at its file.
  std::optional<nvmesim::InputError> open(const RunArgs& a, nvmesim::RunOptions& ropts) {
    const std::string replay_diff_path = !ropts.replay                  ? std::string()
                                         : !a.replay_diff_path.empty() ? a.replay_diff_path
                                                                       : default_replay_diff(a.out_path);
    const Output outputs[] = {{"-o", a.out_path, results, nullptr},
                              {"--trace", a.trace_path, trace, &ropts.trace_out},
                              {"--command-trace", a.command_trace_path, commands, &ropts.command_trace_out},
                              {"--replay-diff", replay_diff_path, replay_diff, &ropts.replay_diff_out}};
    for (const Output& o : outputs) {
      if (o.path.empty()) continue;
      std::string e = o.file.open(o.path);
      if (!e.empty()) return nvmesim::InputError{o.option, e};
      if (o.stream) *o.stream = &o.file.stream();
    }
    return std::nullopt;
  }
  // Finishes them all, every write checked, then renames each over its target; the first
  // failure (after a failed write no target is replaced: the temporaries go with the
  // RunOutputs).
  std::optional<std::string> commit() { return nvmesim::commit_all({&results, &trace, &commands, &replay_diff}); }

  nvmesim::OutputFile results, trace, commands, replay_diff;

 private:
  struct Output {
    const char* option;
    const std::string& path;
    nvmesim::OutputFile& file;
    std::ostream** stream;
  };
};

// The trace buffers get what the rest of the run leaves under the memory limit, over the
// window --trace-window asks for.
void set_trace_limits(const RunArgs& a, const nvmesim::LoadedScenario& ls, const nvmesim::LoadOptions& opts,
                      nvmesim::RunOptions& ropts) {
  nvmesim::TraceCaps caps = nvmesim::trace_caps(ls.scenario, opts.memory_limit, opts.recording);
  ropts.trace_max_events = caps.trace_events;
  ropts.command_trace_max_records = caps.command_records;
  ropts.timeline_cap = nvmesim::timeline_cap(ls.scenario, opts.memory_limit, opts.recording);
  if (!a.trace_window.empty()) {
    TraceWindow w = *parse_trace_window(a.trace_window);
    ropts.trace_from_us = w.from_us;
    ropts.trace_to_us = w.to_us;
  }
}

// Progress on a terminal, once a run has taken more than two seconds.
class ProgressLine {
 public:
  // The run's progress callback; empty (no progress) unless stderr is a terminal.
  std::function<void(double)> callback(bool quiet) {
    if (quiet || isatty(STDERR_FILENO) == 0) return {};
    start_ = std::chrono::steady_clock::now();
    return [this](double f) {
      double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      if ((el < 2.0 && !shown_) || (f < 1.0 && el - last_print_ < 0.1)) return;
      shown_ = true;
      last_print_ = el;
      std::fprintf(stderr, "\r  simulating: %5.1f%%  (%.1f s)", f * 100.0, el);
      std::fflush(stderr);
    };
  }
  // Erases the line, if one was drawn.
  void clear() const {
    if (shown_) std::fprintf(stderr, "\r%60s\r", "");
  }

 private:
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
  double last_print_ = 0;  // seconds: redraw the line at most ten times a second
};

// After a run: the summary on stdout, then the trace's name and the speed on stderr;
// with -q nothing (errors only: what the run found is in its files).
int report_run(const RunArgs& a, const nlohmann::json& results, const nvmesim::RunInfo& info) {
  if (a.quiet) return finish_stdout(0);
  nvmesim::print_summary(std::cout, results);
  if (int code = finish_stdout(0)) return code;  // the summary before the speed line on stderr
  if (results.contains("replay") && results["replay"].contains("span") &&
      results["replay"]["span"].value("warning", nlohmann::json()).is_string())
    std::fprintf(stderr, "nvmesim: warning: %s\n", results["replay"]["span"]["warning"].get<std::string>().c_str());
  if (!a.trace_path.empty())
    std::fprintf(stderr, "trace: %s (open in ui.perfetto.dev)%s\n", a.trace_path.c_str(),
                 info.trace_dropped ? ", event cap reached: later events dropped" : "");
  std::fprintf(stderr,
               "wall %.3f s, %u partition(s) on %u thread(s), %llu events (%.2f M events/s), %.2f M simulated I/Os "
               "per wall-second\n",
               info.wall_seconds, info.partitions, info.threads, static_cast<unsigned long long>(info.events),
               static_cast<double>(info.events) / info.wall_seconds / 1e6,
               static_cast<double>(info.ios) / info.wall_seconds / 1e6);
  return 0;
}

}  // namespace

int run_or_validate(bool validate, const RunArgs& a) {
  const nvmesim::LoadOptions opts = load_options(a);
  auto loaded = nvmesim::load_scenario_file(a.scenario, opts);
  if (auto* e = std::get_if<nvmesim::InputError>(&loaded)) return input_error(*e);
  const auto& ls = std::get<nvmesim::LoadedScenario>(loaded);
  auto replay_read = load_replay_option(a, ls);
  if (auto* e = std::get_if<nvmesim::InputError>(&replay_read)) return input_error(*e);
  std::optional<nvmesim::ReplayTrace>& replay = std::get<std::optional<nvmesim::ReplayTrace>>(replay_read);
  if (validate) {
    std::cout << a.scenario << ": valid (" << ls.scenario.drives.size() << " drive(s), " << ls.scenario.jobs.size()
              << " job section(s), policy " << ls.scenario.policy.name << ")\n";
    for (const auto& w : ls.warnings) std::cout << "  warning: " << w << "\n";
    return finish_stdout(0);
  }

  RunOutputs outputs;
  nvmesim::RunOptions ropts;
  if (replay) ropts.replay = &*replay;
  if (!a.threads.empty()) ropts.threads = static_cast<unsigned>(*parse_threads(a.threads));
  ropts.memory_limit = opts.memory_limit;
  ropts.check_invariants = ropts.check_invariants || a.check_invariants;
  if (auto e = outputs.open(a, ropts)) return input_error(*e);
  set_trace_limits(a, ls, opts, ropts);
  ProgressLine progress;
  ropts.progress = progress.callback(a.quiet);
  nvmesim::RunInfo info;
  nvmesim::results::RunRecord record;
  if (a.format == "fio-json") ropts.record_out = &record;
  nlohmann::json results = nvmesim::run_scenario(ls, ropts, &info);
  progress.clear();

  if (!a.out_path.empty())
    outputs.results.stream() << (a.format == "fio-json" ? nvmesim::fio_json_of(record, replay.has_value()).dump(2) + "\n"
                                                        : nvmesim::dump_results(results));
  if (auto e = outputs.commit()) {
    std::cerr << "nvmesim: " << *e << "\n";
    return kExitInternal;
  }
  return report_run(a, results, info);
}

void add_scenario_options(CLI::App* sub, RunArgs& ra) {
  // A whole number of microseconds (its range is the scenario's: the loader checks it).
  const CLI::Validator whole_us(
      [](std::string& v) -> std::string {
        if (!v.empty() && v.size() <= 19 && v.find_first_not_of("0123456789") == std::string::npos) return "";
        return "must be a whole number of microseconds, got '" + v + "'";
      },
      "US");
  sub->add_option("SCENARIO", ra.scenario, "scenario JSON file or fio job file")->required();
  sub->add_option("--set", ra.sets, "override: path=value (repeatable)")
      ->type_name("PATH=VALUE")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--duration-us", ra.duration_us, "measured window in us (as --set duration_us=US, after every --set)")
      ->type_name("US")
      ->check(whole_us);
  sub->add_option("--warmup-us", ra.warmup_us, "warm-up in us (as --set warmup_us=US, after every --set)")
      ->type_name("US")
      ->check(whole_us);
  sub->add_option("--seed", ra.seed, "seed (0 .. 2^64-1), wins over the scenario and --set")
      ->type_name("N")
      ->check(checked(parse_seed, kSeedRule));
  sub->add_option("--memory-limit", ra.memory_limit,
                  "refuse a run whose estimated memory is larger (default 512m)")
      ->type_name("SIZE")
      ->check(checked(parse_memory_limit, kMemoryRule));
}

void add_run_options(CLI::App* run, RunArgs& ra) {
  const CLI::Validator file_name = checked(is_file_name, kFileRule);
  run->add_option("-o,--output", ra.out_path, "results JSON file (docs/results.md)")->type_name("FILE")->check(file_name);
  run->add_option("--trace", ra.trace_path, "Chrome/Perfetto trace of the run")->type_name("FILE")->check(file_name);
  run->add_option("--command-trace", ra.command_trace_path, "per-command CSV (docs/trace-format.md)")
      ->type_name("FILE")
      ->check(file_name);
  run->add_option("--trace-window", ra.trace_window,
                  "both traces' window in simulated us (default: to 10 ms into the measured window, from its start for --trace and from 0 for --command-trace)")
      ->type_name("FROM_US:TO_US")
      ->check(checked(parse_trace_window, kWindowRule));
  run->add_option("--format", ra.format,
                  "layout of -o: results (docs/results.md) or fio-json (fio's --output-format=json)")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"results", "fio-json"}));
  run->add_option("--replay", ra.replay_path,
                  "drive the run from a recorded trace: command-trace CSV or fio iolog v3 (docs/trace-format.md)")
      ->type_name("FILE")
      ->check(file_name);
  run->add_flag("--replay-service", ra.replay_service,
                "with --replay: each command's device time (doorbell to CQE) from the trace");
  run->add_option("--replay-diff", ra.replay_diff_path,
                  "recorded vs simulated per command, CSV (default: beside -o, *.replay-diff.csv)")
      ->type_name("FILE")
      ->check(file_name);
  run->add_option("--replay-drive", ra.replay_drive, "the drive a trace without drive identity (hw, iolog) maps to")
      ->type_name("NAME")
      ->check(checked(is_drive_name, kDriveRule));
  run->add_option("--replay-block-bytes", ra.replay_block_bytes, "the trace's logical block size (default 512)")
      ->type_name("N")
      ->check(checked(parse_block_bytes, kBlockRule));
  run->add_option("--threads", ra.threads,
                  "threads for a scenario whose drives, queues, jobs and cores form independent partitions "
                  "(default: the machine's cores); the results do not depend on it")
      ->type_name("N")
      ->check(checked(parse_threads, kThreadsRule));
  run->add_flag("--check-invariants", ra.check_invariants,
                "check the results against their invariants (docs/results.md) and fail (exit 1) on a broken one; "
                "always on in Debug builds");
  run->add_flag("-q,--quiet", ra.quiet, "print nothing but errors (no summary, warnings, speed or progress)");
}

}  // namespace nvmesim::cli
