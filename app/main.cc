// nvmesim: the command-line edge. Exit 0 on success, 2 on bad input (the message names
// the JSON path), 1 on internal errors.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "app/report.h"
#include "app/run.h"
#include "app/scenario_load.h"
#include "app/summary.h"
#include "policies/registry.h"

namespace {

constexpr int kExitInput = 2;
constexpr int kExitInternal = 1;

int usage(std::ostream& os, int code) {
  os << "usage:\n"
        "  nvmesim run SCENARIO [--set path=value ...] [--seed N] [-o results.json] [--quiet]\n"
        "              [--trace trace.json] [--command-trace commands.csv] [--trace-window FROM_US:TO_US]\n"
        "  nvmesim validate SCENARIO [--set path=value ...]\n"
        "  nvmesim report [DIR] [--set path=value ...]   published vs simulated (default: scenarios/published)\n"
        "  nvmesim policies                               every policy's parameters (Markdown)\n"
        "  nvmesim schema\n"
        "SCENARIO is a scenario JSON file or a fio job file (*.fio) run on the default testbed.\n"
        "Paths: /jobs/0/iodepth=64 or jobs.0.iodepth=64; values are JSON (bare words are strings).\n";
  return code;
}

int input_error(const nvmesim::InputError& e) {
  std::cerr << "nvmesim: " << e.str() << "\n";
  return kExitInput;
}

int run_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help") return usage(std::cout, args.empty() ? kExitInput : 0);
  const std::string cmd = args[0];
  if (cmd == "schema") {
    std::cout << nvmesim::scenario_schema().dump(2) << "\n";
    return 0;
  }
  if (cmd == "policies") {
    // Every policy and its parameters (default, legal range, unit, meaning) as Markdown.
    for (const auto& p : nvmesim::policy::kPolicies) {
      std::cout << "### `" << p.name << "`\n\n";
      if (p.params.empty()) {
        std::cout << "No parameters.\n\n";
        continue;
      }
      std::cout << "| parameter | default | range | unit | meaning |\n|---|---|---|---|---|\n";
      for (const auto& s : p.params)
        std::cout << "| `" << s.name << "` | " << s.default_value << " | " << s.min << " .. " << s.max << " | "
                  << s.unit << " | " << s.doc << " |\n";
      std::cout << "\n";
    }
    return 0;
  }
  if (cmd == "report") {
    std::string dir = nvmesim::default_scenarios_dir() + "/published";
    std::vector<std::string> sets;
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--set" && i + 1 < args.size()) sets.push_back(args[++i]);
      else if (!args[i].empty() && args[i][0] == '-') return usage(std::cerr, kExitInput);
      else dir = args[i];
    }
    return nvmesim::report_main(dir, sets, std::cout, std::cerr);
  }
  if (cmd != "run" && cmd != "validate") {
    std::cerr << "nvmesim: unknown command '" << cmd << "'\n";
    return usage(std::cerr, kExitInput);
  }
  std::string scenario, out_path, trace_path, command_trace_path;
  int64_t trace_from = -1, trace_to = -1;
  bool quiet = false;
  nvmesim::LoadOptions opts;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* what) -> const std::string* {
      if (i + 1 >= args.size()) {
        std::cerr << "nvmesim: " << a << " needs " << what << "\n";
        return nullptr;
      }
      return &args[++i];
    };
    if (a == "--set") {
      auto v = value("path=value");
      if (!v) return kExitInput;
      opts.overrides.push_back(*v);
    } else if (a == "--seed") {
      auto v = value("a number");
      if (!v) return kExitInput;
      try {
        std::size_t used = 0;
        unsigned long long s = std::stoull(*v, &used);
        if (used != v->size() || (*v)[0] == '-') throw std::invalid_argument(*v);
        opts.seed = s;
      } catch (const std::exception&) {
        return input_error({"--seed", "must be a non-negative integer, got '" + *v + "'"});
      }
    } else if (a == "-o" || a == "--output") {
      auto v = value("a file name");
      if (!v) return kExitInput;
      out_path = *v;
    } else if (a == "--trace") {
      auto v = value("a file name");
      if (!v) return kExitInput;
      trace_path = *v;
    } else if (a == "--command-trace") {
      auto v = value("a file name");
      if (!v) return kExitInput;
      command_trace_path = *v;
    } else if (a == "--trace-window") {
      auto v = value("FROM_US:TO_US");
      if (!v) return kExitInput;
      long long from = -1, to = -1;
      char extra = 0;
      if (std::sscanf(v->c_str(), "%lld:%lld%c", &from, &to, &extra) != 2 || from < 0 || to <= from)
        return input_error({"--trace-window", "must be FROM_US:TO_US with 0 <= FROM < TO, got '" + *v + "'"});
      trace_from = from;
      trace_to = to;
    } else if (a == "-q" || a == "--quiet") {
      quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "nvmesim: unknown option '" << a << "'\n";
      return usage(std::cerr, kExitInput);
    } else if (scenario.empty()) {
      scenario = a;
    } else {
      std::cerr << "nvmesim: one scenario at a time, got '" << scenario << "' and '" << a << "'\n";
      return kExitInput;
    }
  }
  if (scenario.empty()) return usage(std::cerr, kExitInput);

  auto loaded = nvmesim::load_scenario_file(scenario, opts);
  if (auto* e = std::get_if<nvmesim::InputError>(&loaded)) return input_error(*e);
  const auto& ls = std::get<nvmesim::LoadedScenario>(loaded);
  if (cmd == "validate") {
    std::cout << scenario << ": valid (" << ls.scenario.drives.size() << " drive(s), " << ls.scenario.jobs.size()
              << " job section(s), policy " << ls.scenario.policy.name << ")\n";
    return 0;
  }

  // Progress on a terminal, once a run has taken more than two seconds.
  nvmesim::RunOptions ropts;
  ropts.trace_path = trace_path;
  ropts.command_trace_path = command_trace_path;
  ropts.trace_from_us = trace_from;
  ropts.trace_to_us = trace_to;
  bool tty = isatty(STDERR_FILENO) != 0;
  auto start = std::chrono::steady_clock::now();
  bool shown = false;
  double last_print = 0;  // seconds: redraw the line at most ten times a second
  if (tty && !quiet) {
    ropts.progress = [&](double f) {
      double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if ((el < 2.0 && !shown) || (f < 1.0 && el - last_print < 0.1)) return;
      shown = true;
      last_print = el;
      std::fprintf(stderr, "\r  simulating: %5.1f%%  (%.1f s)", f * 100.0, el);
      std::fflush(stderr);
    };
  }
  nvmesim::RunInfo info;
  nlohmann::json results = nvmesim::run_scenario(ls, ropts, &info);
  if (shown) std::fprintf(stderr, "\r%60s\r", "");

  if (!out_path.empty()) {
    std::ofstream out(out_path);
    if (!out) return input_error({"-o", "cannot write " + out_path});
    out << nvmesim::dump_results(results);
  }
  if (!quiet) nvmesim::print_summary(std::cout, results);
  std::cout.flush();  // the summary before the speed line on stderr
  if (!trace_path.empty())
    std::fprintf(stderr, "trace: %s (open in ui.perfetto.dev)%s\n", trace_path.c_str(),
                 info.trace_dropped ? ", event cap reached: later events dropped" : "");
  std::fprintf(stderr, "wall %.3f s, %llu events (%.2f M events/s), %.2f M simulated I/Os per wall-second\n",
               info.wall_seconds, static_cast<unsigned long long>(info.events),
               static_cast<double>(info.events) / info.wall_seconds / 1e6,
               static_cast<double>(info.ios) / info.wall_seconds / 1e6);
  return 0;
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
