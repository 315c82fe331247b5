// nvmesim: the command-line edge. Exit 0 on success, 2 on bad input (the message names
// the JSON path or the option), 1 on internal errors and failed writes.
#include <cstdio>
#include <exception>
#include <optional>
#include <filesystem>
#include <iostream>
#include <string>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/calibration/calibrate.h"
#include "app/calibration/calibration_report.h"
#include "app/calibration/calibration_spec.h"
#include "app/cli/cli_options.h"
#include "app/cli/python_handoff.h"
#include "app/cli/run_command.h"
#include "app/report/report.h"
#include "app/results/output_file.h"
#include "app/scenario/scenario_load.h"
#include "policies/registry.h"

namespace nvmesim::cli {
namespace {

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

// `nvmesim report`'s options.
struct ReportArgs {
  std::string dir = nvmesim::default_scenarios_dir() + "/published";
  std::vector<std::string> sets;
  std::string seeds;
};

CLI::App* add_report_command(CLI::App& app, ReportArgs& ra) {
  CLI::App* report = app.add_subcommand("report", "published vs simulated for every scenario in DIR");
  report->add_option("DIR", ra.dir, "directory of scenarios with a \"published\" block")
      ->type_name("DIR");
  report->add_option("--set", ra.sets, "override for every run: path=value (repeatable)")
      ->type_name("PATH=VALUE")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  report->add_option("--seeds", ra.seeds,
                     "run each row at its scenario's seed and the next N-1, paired; report medians, the change's "
                     "range and every seed's change (default 1)")
      ->type_name("N")
      ->check(checked(parse_report_seeds, kReportSeedsRule));
  return report;
}

int report_command(const ReportArgs& ra) {
  nvmesim::ReportOptions ro;
  ro.overrides = ra.sets;
  if (!ra.seeds.empty()) ro.seeds = static_cast<uint32_t>(*parse_report_seeds(ra.seeds));
  return finish_stdout(nvmesim::report_main(ra.dir, ro, std::cout, std::cerr));
}

CLI::App* add_calibrate_command(CLI::App& app, CalibrateArgs& ca) {
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
      ->check(checked(is_file_name, kFileRule));
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
  return calibrate;
}

// Parses the command line; the exit status when that is the end (--help, bad usage).
std::optional<int> parse(CLI::App& app, int argc, char** argv) {
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
  return std::nullopt;
}

// The CLI's table, one declaration per subcommand, read top to bottom as `--help` prints
// them; each command's options are declared in the function it names.
int run_main(int argc, char** argv) {
  // Commands of the Python package: every further argument, --help included, is theirs.
  if (argc >= 2 && (std::string(argv[1]) == "ab" || std::string(argv[1]) == "compare" ||
                    std::string(argv[1]) == "tune"))
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
  CLI::App* run = app.add_subcommand("run", "run a scenario: summary on stdout, results with -o");
  add_scenario_options(run, ra);
  add_run_options(run, ra);
  CLI::App* validate = app.add_subcommand("validate", "check a scenario (and its memory estimate) without running it");
  add_scenario_options(validate, ra);
  ReportArgs rep;
  CLI::App* report = add_report_command(app, rep);
  CalibrateArgs ca;
  CLI::App* calibrate = add_calibrate_command(app, ca);
  CLI::App* policies = app.add_subcommand("policies", "every policy's parameters (Markdown)");
  CLI::App* schema = app.add_subcommand("schema", "the scenario JSON Schema");
  // Listed for --help; run_main hands them to the Python package before parsing.
  app.add_subcommand("ab", "paired A/B evaluation over a matrix, with verdicts (docs/ab.md)");
  app.add_subcommand("compare", "measured vs simulated, metric by metric (docs/compare.md)");
  app.add_subcommand("tune", "search a policy's parameters over an A/B matrix, judged on held-out cases (docs/tune.md)");

  // CLI11 takes an unknown first word for an extra argument and says "A subcommand is
  // required", which names neither the word nor the commands.
  if (argc >= 2 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "nvmesim: unknown command '" << argv[1] << "' (commands: " << names
                << ")\nRun 'nvmesim --help' for usage.\n";
      return kExitInput;
    }
  }
  if (auto code = parse(app, argc, argv)) return *code;
  if (schema->parsed()) {
    std::cout << nvmesim::scenario_schema().dump(2) << "\n";
    return finish_stdout(0);
  }
  if (policies->parsed()) {
    print_policies(std::cout);
    return finish_stdout(0);
  }
  if (calibrate->parsed()) return calibrate_main(ca);
  if (report->parsed()) return report_command(rep);
  return run_or_validate(validate->parsed(), ra);
}

}  // namespace
}  // namespace nvmesim::cli

int main(int argc, char** argv) {
  try {
    return nvmesim::cli::run_main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "nvmesim: internal error: " << e.what() << "\n";
    return nvmesim::cli::kExitInternal;
  }
}
