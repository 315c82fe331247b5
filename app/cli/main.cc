// nvmesim: the command-line edge. Exit 0 on success, 2 on bad input (the message names
// the JSON path or the option), 1 on internal errors and failed writes.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/calibration/calibrate.h"
#include "app/calibration/calibration_report.h"
#include "app/calibration/calibration_spec.h"
#include "app/cli/python_handoff.h"
#include "app/input/checked_number.h"
#include "app/input/input_limits.h"
#include "app/input/json_reader.h"
#include "app/replay/replay_load.h"
#include "app/report/report.h"
#include "app/results/fio_json.h"
#include "app/results/output_file.h"
#include "app/run/run.h"
#include "app/run/summary.h"
#include "app/scenario/memory_estimate.h"
#include "app/scenario/scenario_load.h"
#include "policies/registry.h"

namespace {

constexpr int kExitInput = 2;
constexpr int kExitInternal = 1;

int input_error(const nvmesim::InputError& e) {
  std::cerr << "nvmesim: " << e.str() << "\n";
  return kExitInput;
}

// stdout is an output like any other: a failed write (a full disk, /dev/full, a closed
// pipe) is exit 1, never a silent success.
int finish_stdout(int code) {
  errno = 0;
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "nvmesim: " << nvmesim::cannot_write("stdout", errno) << "\n";
    return kExitInternal;
  }
  return code;
}

// ---- option values: parsed and range-checked once, the error names the option ----------

std::optional<uint64_t> parse_seed(const std::string& s) {
  return nvmesim::in_range_u64(nvmesim::parse_integral(s), 0, UINT64_MAX);
}

std::optional<uint64_t> parse_memory_limit(const std::string& s) {
  auto v = nvmesim::parse_size(s);
  if (!v || *v < (uint64_t{1} << 20) || *v > nvmesim::limits::kMaxMemoryLimitBytes) return std::nullopt;
  return v;
}

struct TraceWindow {
  int64_t from_us = -1, to_us = -1;
};

std::optional<TraceWindow> parse_trace_window(const std::string& s) {
  auto colon = s.find(':');
  if (colon == std::string::npos) return std::nullopt;
  // Within warm-up plus window at their longest: Time arithmetic stays far from overflow.
  const int64_t max_us = 2 * nvmesim::limits::kMaxRunDuration.count_ns() / 1000;
  auto from = nvmesim::in_range(nvmesim::parse_integral(s.substr(0, colon)), 0, max_us);
  auto to = nvmesim::in_range(nvmesim::parse_integral(s.substr(colon + 1)), 0, max_us);
  if (!from || !to || *to <= *from) return std::nullopt;
  return TraceWindow{*from, *to};
}

// A CLI11 check that runs `parse` and words its failure as `what`.
template <class Parse>
CLI::Validator checked(Parse parse, std::string what) {
  return CLI::Validator(
      [parse, what](std::string& s) -> std::string { return parse(s) ? "" : what + ", got '" + s + "'"; }, "", "");
}

std::optional<uint64_t> parse_threads(const std::string& s) {
  return nvmesim::in_range_u64(nvmesim::parse_integral(s), 1, 1024);
}
std::optional<uint64_t> parse_report_seeds(const std::string& s) {
  return nvmesim::in_range_u64(nvmesim::parse_integral(s), 1, nvmesim::kMaxReportSeeds);
}

const std::string kThreadsRule = "must be an integer from 1 to 1024";
const std::string kReportSeedsRule = "must be an integer from 1 to " + std::to_string(nvmesim::kMaxReportSeeds);
const std::string kSeedRule = "must be a non-negative integer up to 18446744073709551615";
const std::string kMemoryRule = "must be a size from 1m to 1024g (bytes, or with a k/m/g suffix)";
const std::string kFileRule = "must name a file";
const std::string kDateRule = "must be a calendar date YYYY-MM-DD";
bool is_file_name(const std::string& s) { return !s.empty(); }

const std::string kWindowRule = "must be FROM_US:TO_US with 0 <= FROM < TO <= " +
                                std::to_string(2 * nvmesim::limits::kMaxRunDuration.count_ns() / 1000);

void print_policies(std::ostream& os) {
  // Every policy and its parameters (default, legal range, unit, meaning) as Markdown.
  for (const auto& p : nvmesim::policy::kPolicies) {
    os << "### `" << p.name << "`\n\n";
    if (p.params.empty()) {
      os << "No parameters.\n\n";
      continue;
    }
    os << "| parameter | default | range | unit | meaning |\n|---|---|---|---|---|\n";
    for (const auto& s : p.params)
      os << "| `" << s.name << "` | " << s.default_value << " | " << s.min << " .. " << s.max << " | " << s.unit
         << " | " << s.doc << " |\n";
    os << "\n";
  }
}

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

std::optional<uint64_t> parse_block_bytes(const std::string& s) {
  auto v = nvmesim::in_range_u64(nvmesim::parse_integral(s), 1, uint64_t{1} << 20);
  if (!v || (*v & (*v - 1)) != 0) return std::nullopt;
  return v;
}
const std::string kBlockRule = "must be a power of two from 1 to 1048576 bytes";

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
  opts.trace = !a.trace_path.empty();
  opts.command_trace = !a.command_trace_path.empty();
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
  nvmesim::TraceCaps caps = nvmesim::trace_caps(ls.scenario, opts.memory_limit, opts.trace, opts.command_trace);
  ropts.trace_max_events = caps.trace_events;
  ropts.command_trace_max_records = caps.command_records;
  ropts.timeline_cap = nvmesim::timeline_cap(ls.scenario, opts.memory_limit, opts.trace, opts.command_trace);
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

struct CalibrateArgs {
  std::string spec, out_path, report_dir, date;
  bool quiet = false;
  bool strict_ranges = false;  // exit 1 when a fitted value is outside its physical range
};

// nvmesim calibrate: fit, then write the fitted profile(s) (-o) and the report (--report).
int calibrate_main(const CalibrateArgs& a) {
  auto loaded = nvmesim::load_calibration_spec_file(a.spec);
  if (auto* e = std::get_if<nvmesim::InputError>(&loaded)) return input_error({a.spec + (e->path.empty() ? "" : ":" + e->path), e->message});
  const auto& spec = std::get<nvmesim::CalibrationSpec>(loaded);
  // Outputs opened before the fit (as temporaries beside their targets): an unwritable path
  // is bad input, found now; the previous files stay until the fit has succeeded.
  nvmesim::OutputFile out, report_json, report_md;
  if (!a.out_path.empty())
    if (std::string e = out.open(a.out_path); !e.empty()) return input_error({"-o", e});
  if (!a.report_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.report_dir, ec);
    if (std::string e = report_json.open(a.report_dir + "/report.json"); !e.empty()) return input_error({"--report", e});
    if (std::string e = report_md.open(a.report_dir + "/report.md"); !e.empty()) return input_error({"--report", e});
  }
  std::string date = !a.date.empty() ? a.date : !spec.fitted_on.empty() ? spec.fitted_on : nvmesim::utc_date_today();
  auto progress = [&](const std::string& s) {
    if (!a.quiet) std::fprintf(stderr, "calibrate: %s\n", s.c_str());
  };
  auto result = nvmesim::calibrate(spec, date, progress);
  if (auto* e = std::get_if<nvmesim::InputError>(&result)) return input_error({a.spec + ":" + e->path, e->message});
  const auto& outcome = std::get<nvmesim::CalibrationOutcome>(result);
  // One profile fitted: -o is that profile. Several: an object of them by slot.
  const nlohmann::json& fitted =
      outcome.profiles.size() == 1 ? outcome.profiles.begin().value() : outcome.profiles;
  if (!a.out_path.empty()) out.stream() << fitted.dump(2) << "\n";
  if (!a.report_dir.empty()) {
    nlohmann::json doc = outcome.report;
    doc["fitted_profiles"] = outcome.profiles;
    report_json.stream() << doc.dump(2) << "\n";
    report_md.stream() << nvmesim::calibration_report_markdown(outcome.report);
  }
  if (auto e = nvmesim::commit_all({&out, &report_json, &report_md})) {
    std::cerr << "nvmesim: " << *e << "\n";
    return kExitInternal;
  }
  if (!a.quiet) std::cout << nvmesim::calibration_report_markdown(outcome.report);
  // Like compare's failed bound: the outputs are written, and the exit status says so.
  const nlohmann::json& outside = outcome.report["outside_physical_range"];
  if (a.strict_ranges && !outside.empty()) {
    for (const auto& p : outside)
      std::cerr << "nvmesim: calibrate: " << p.get<std::string>()
                << " was fitted outside the physical range its profile documents (--strict-ranges)\n";
    return finish_stdout(kExitInternal);
  }
  return finish_stdout(0);
}

// Long on purpose (~115 lines): it is the CLI's table, one declaration per subcommand and
// option, read top to bottom as `--help` prints it; the work is in the functions it calls.
int run_main(int argc, char** argv) {
  // Commands of the Python package: every further argument, --help included, is theirs.
  if (argc >= 2 && (std::string(argv[1]) == "ab" || std::string(argv[1]) == "compare"))
    return nvmesim::exec_python_module("nvmesim." + std::string(argv[1]),
                                       std::vector<std::string>(argv + 2, argv + argc));
  CLI::App app{"nvmesim: a deterministic simulator of the NVMe host completion path.\n"
               "Exit status: 0 success, 2 bad input (the message names the JSON path or option),\n"
               "1 internal error or a failed write.",
               "nvmesim"};
  app.require_subcommand(1);
  app.footer(
      "SCENARIO is a scenario JSON file or a fio job file (*.fio) run on the default testbed.\n"
      "Paths: /jobs/0/iodepth=64 or jobs.0.iodepth=64; values are JSON (bare words are strings).\n"
      "Run 'nvmesim COMMAND --help' for a command's options.");

  RunArgs ra;
  // A whole number of microseconds (its range is the scenario's: the loader checks it).
  const CLI::Validator whole_us(
      [](std::string& v) -> std::string {
        if (!v.empty() && v.size() <= 19 && v.find_first_not_of("0123456789") == std::string::npos) return "";
        return "must be a whole number of microseconds, got '" + v + "'";
      },
      "US");
  auto add_scenario_options = [&](CLI::App* sub) {
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
  };
  CLI::App* run = app.add_subcommand("run", "run a scenario: summary on stdout, results with -o");
  add_scenario_options(run);
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
      ->type_name("NAME");
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
  CLI::App* validate = app.add_subcommand("validate", "check a scenario (and its memory estimate) without running it");
  add_scenario_options(validate);

  CLI::App* report = app.add_subcommand("report", "published vs simulated for every scenario in DIR");
  std::string report_dir = nvmesim::default_scenarios_dir() + "/published";
  std::vector<std::string> report_sets;
  report->add_option("DIR", report_dir, "directory of scenarios with a \"published\" block")
      ->type_name("DIR");
  report->add_option("--set", report_sets, "override for every run: path=value (repeatable)")
      ->type_name("PATH=VALUE")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  std::string report_seeds;
  report->add_option("--seeds", report_seeds,
                     "run each row at its scenario's seed and the next N-1, paired; report medians, the change's "
                     "range and every seed's change (default 1)")
      ->type_name("N")
      ->check(checked(parse_report_seeds, kReportSeedsRule));
  CalibrateArgs ca;
  CLI::App* calibrate = app.add_subcommand(
      "calibrate",
      "fit profile parameters to measured runs (hw results, fio JSON, published rows) and report\n"
      "what the data pin: values, standard errors, correlations, the scaled Jacobian's singular values,\n"
      "parameters that cannot be identified, the feasible set and the held-out runs' prediction\n"
      "intervals (docs/calibrating.md)");
  calibrate->add_option("SPEC", ca.spec, "calibration spec (nvmesim-calibrate/1, scenarios/calibration.schema.json)")
      ->required();
  calibrate->add_option("-o,--output", ca.out_path,
                        "fitted profile JSON (several profiles fitted: an object of them by slot)")
      ->type_name("FILE")
      ->check(file_name);
  calibrate->add_option("--report", ca.report_dir, "write report.json and report.md into DIR")
      ->type_name("DIR")
      ->check(checked(is_file_name, "must name a directory"));
  calibrate->add_option("--date", ca.date, "the date written into the fitted values' sources (default: the spec's\n"
                                           "fitted_on, else today in UTC)")
      ->type_name("YYYY-MM-DD")
      ->check(checked(nvmesim::is_calendar_date, kDateRule));
  calibrate->add_flag("-q,--quiet", ca.quiet, "no report on stdout and no progress on stderr");
  calibrate->add_flag("--strict-ranges", ca.strict_ranges,
                      "exit 1 (after writing the outputs) when a fitted value lies outside the physical range its\n"
                      "profile documents (\"ranges\"); the report flags them either way");
  CLI::App* policies = app.add_subcommand("policies", "every policy's parameters (Markdown)");
  CLI::App* schema = app.add_subcommand("schema", "the scenario JSON Schema");
  // Listed for --help; run_main hands them to the Python package before parsing.
  app.add_subcommand("ab", "paired A/B evaluation over a matrix, with verdicts (docs/ab.md)");
  app.add_subcommand("compare", "measured vs simulated, metric by metric (docs/compare.md)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return finish_stdout(app.exit(e));  // --help: usage on stdout, exit 0
  } catch (const CLI::ParseError& e) {
    std::cerr << "nvmesim: " << e.what() << "\n";
    if (argc <= 1) std::cerr << app.help();
    else std::cerr << "Run 'nvmesim --help' for usage.\n";
    return kExitInput;
  }

  if (schema->parsed()) {
    std::cout << nvmesim::scenario_schema().dump(2) << "\n";
    return finish_stdout(0);
  }
  if (policies->parsed()) {
    print_policies(std::cout);
    return finish_stdout(0);
  }
  if (calibrate->parsed()) return calibrate_main(ca);
  if (report->parsed()) {
    nvmesim::ReportOptions ro;
    ro.overrides = report_sets;
    if (!report_seeds.empty()) ro.seeds = static_cast<uint32_t>(*parse_report_seeds(report_seeds));
    return finish_stdout(nvmesim::report_main(report_dir, ro, std::cout, std::cerr));
  }
  return run_or_validate(validate->parsed(), ra);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "nvmesim: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}
