// nvmesim-hw: run nvmesim's scenarios and policies on a real NVMe drive over VFIO.
// `nvmesim-hw --help` and `nvmesim-hw COMMAND --help` list the commands and options;
// docs/hw.md says what each touches.
#include <CLI/CLI.hpp>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/scenario/scenario_load.h"
#include "hw/base/refusal.h"
#include "hw/base/strict_number.h"
#include "hw/nvme/error.h"
#include "hw/pci/sysfs.h"
#include "hw/pci/vfio_binding.h"
#include "hw/runner/io/lba_range.h"
#include "hw/runner/run/commands.h"
#include "hw/runner/run/run_on_device.h"

namespace {

using namespace nvmesim::hw;

// The one global of the program: a signal handler can reach nothing else. Set on
// SIGINT/SIGTERM; the run stops submitting, lets inflight commands finish (or resets
// the controller after a grace period), shuts the controller down and releases it.
std::atomic<bool> g_stop{false};

void on_signal(int) { g_stop = true; }

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: blocking calls return and see the flag
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // A closed stdout is a write error, not a death that skips the driver's restore.
  signal(SIGPIPE, SIG_IGN);
}

// An unsigned option parsed by parse_decimal (hw/base/strict_number.h), not by CLI11's own
// conversion, which accepts "-1" (wrapping), "0x10", "010" (octal) and saturates on
// overflow. A bad value is a CLI::ValidationError naming the option: exit 2.
CLI::Option* add_number(CLI::App* cmd, const std::string& name, uint64_t min, uint64_t max,
                        const std::string& help, std::function<void(uint64_t)> set) {
  return cmd
      ->add_option_function<std::string>(
          name,
          [min, max, name, set = std::move(set)](const std::string& text) {
            uint64_t v = 0;
            if (std::string err = parse_decimal(text, min, max, &v); !err.empty())
              throw CLI::ValidationError(name, err);
            set(v);
          },
          help)
      ->type_name("N");
}

CLI::Option* add_range(CLI::App* cmd, std::optional<LbaRange>& target, const std::string& help) {
  return cmd
      ->add_option_function<std::string>(
          "--allow-write",
          [&target](const std::string& text) {
            LbaRange r;
            if (std::string err = parse_lba_range(text, &r); !err.empty())
              throw CLI::ValidationError("--allow-write", err);
            target = r;
          },
          help)
      ->type_name("FIRST_LBA:COUNT");
}

const CLI::Validator kBdf(
    [](std::string& text) -> std::string {
      try {
        text = normalize_bdf(text);
        return "";
      } catch (const std::exception& e) {
        return e.what();
      }
    },
    "BDF", "PCI address");

struct Args {
  std::string device;
  bool bind = false;
  std::optional<LbaRange> allow_write;
  uint32_t bs = 65536;
  std::string scenario, results, trace;
  std::vector<std::string> overrides;
  std::optional<uint64_t> seed;
  int64_t io_timeout_ms = 10000;
  bool soft_mask = false;
  std::string bdf;  // bind, unbind
};

// The subcommands, their options bound to `a`.
struct Commands {
  CLI::App *identify, *rwtest, *run, *bind, *unbind;
};

Commands define_commands(CLI::App& app, Args& a) {
  app.require_subcommand(1);
  const std::string bind_help =
      "bind the device to vfio-pci for this command and give it back to its driver on exit (also after "
      "SIGINT, SIGTERM, a crash or SIGKILL); refused when its block devices are in use";
  auto add_device = [&a, bind_help](CLI::App* cmd) {
    cmd->add_option("--device", a.device, "PCI address of the controller (0000:01:00.0)")
        ->required()
        ->transform(kBdf);
    cmd->add_flag("--bind", a.bind, bind_help);
  };

  CLI::App* identify = app.add_subcommand("identify", "controller and namespace identity, limits, features");
  add_device(identify);

  CLI::App* rwtest = app.add_subcommand("rwtest", "write a pattern over a block range, flush, read back, compare");
  add_device(rwtest);
  add_range(rwtest, a.allow_write, "the blocks it may overwrite (required: rwtest writes)");
  add_number(rwtest, "--bs", 512, 1u << 30, "bytes per command, capped by MDTS (default 65536)",
             [&](uint64_t v) { a.bs = uint32_t(v); });

  CLI::App* run = app.add_subcommand("run", "the scenario's first job with its policy on the drive");
  add_device(run);
  run->add_option("scenario", a.scenario, "scenario JSON file or fio job file, as for `nvmesim run`")->required();
  run->add_option("--set", a.overrides, "override a scenario value: path=value (/jobs/0/iodepth=64 or jobs.0.iodepth=64)")
      ->type_name("PATH=VALUE")
      ->allow_extra_args(false);  // one value per --set, so the scenario after it stays positional
  add_number(run, "--seed", 0, std::numeric_limits<uint64_t>::max(), "the scenario's seed (default: its own)",
             [&](uint64_t v) { a.seed = v; });
  add_range(run, a.allow_write, "the blocks a writing job may overwrite; all its I/O then stays inside them");
  run->add_option("-o,--output", a.results, "results JSON (default: stdout)");
  run->add_option("--trace", a.trace, "per-command trace CSV");
  add_number(run, "--io-timeout-ms", 1, 24ull * 3600 * 1000, "I/O command timeout in ms (default 10000)",
             [&](uint64_t v) { a.io_timeout_ms = int64_t(v); });
  run->add_flag("--soft-mask", a.soft_mask, "mask vectors in software only (see docs/hw.md)");

  CLI::App* bind = app.add_subcommand("bind", "bind to vfio-pci, saving the driver it had (refused when in use)");
  bind->add_option("bdf", a.bdf, "PCI address")->required()->transform(kBdf);
  CLI::App* unbind = app.add_subcommand("unbind", "give the device back to the driver saved by bind");
  unbind->add_option("bdf", a.bdf, "PCI address")->required()->transform(kBdf);

  return {identify, rwtest, run, bind, unbind};
}

// A PCI address with no device behind it is the user's mistake, not an internal error:
// exit 2 naming the option (0 when the device is there).
int require_device(const char* option, const std::string& bdf) {
  if (pci_device_exists(bdf)) return exit_code::kOk;
  std::cerr << "nvmesim-hw: " << option << ": no PCI device " << bdf << " (see lspci -D)\n";
  return exit_code::kUsage;
}

int dispatch(int argc, char** argv) {
  CLI::App app{"nvmesim-hw: run nvmesim's scenarios and policies on a real NVMe drive over VFIO.\n"
               "Reads only, unless --allow-write names the blocks that may be overwritten. See docs/hw.md.",
               "nvmesim-hw"};
  Args a;
  const auto [identify, rwtest, run, bind, unbind] = define_commands(app, a);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // prints the usage of the command asked about; exit 0
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "nvmesim-hw: " << e.what() << "\nRun with --help for usage.\n";
    return exit_code::kUsage;
  }

  if (*bind || *unbind) {
    if (int code = require_device("bdf", a.bdf)) return code;
    std::cout << (*bind ? bind_vfio(a.bdf) : unbind_vfio(a.bdf)) << "\n";
    return exit_code::kOk;
  }

  std::optional<nvmesim::LoadedScenario> scenario;  // run only
  if (*run) {
    // The simulator's loader, before the device is looked at: the same validation,
    // overrides and resolved document as `nvmesim run`; exit 2 with the JSON path.
    nvmesim::LoadOptions load;
    load.overrides = a.overrides;
    if (a.seed) load.seed = *a.seed;
    nvmesim::LoadResult loaded = nvmesim::load_scenario_file(a.scenario, load);
    if (auto* e = std::get_if<nvmesim::InputError>(&loaded)) {
      std::cerr << "nvmesim-hw: " << e->str() << "\n";
      return exit_code::kUsage;
    }
    scenario = std::move(std::get<nvmesim::LoadedScenario>(loaded));
  }
  if (int code = require_device("--device", a.device)) return code;
  if (*rwtest && !a.allow_write)
    throw Refusal("rwtest writes: pass --allow-write FIRST_LBA:COUNT to name the blocks it may overwrite");

  // Declared before the command so it outlives the device session: vfio-pci lets go
  // only when the session has closed its fds and mappings.
  std::unique_ptr<TemporaryVfioBinding> binding;
  if (a.bind) binding = std::make_unique<TemporaryVfioBinding>(a.device, std::cerr);
  require_vfio_pci(a.device);  // before anything else is read or touched
  if (*identify) return identify_command(a.device, std::cout);
  if (*rwtest) return rwtest_command(a.device, *a.allow_write, a.bs, &g_stop, std::cout);
  HwRunOptions o;
  o.bdf = a.device;
  o.allow_write = a.allow_write;
  o.results_path = a.results;
  o.trace_path = a.trace;
  o.io_timeout = nvmesim::Duration::ms(a.io_timeout_ms);
  o.hw_mask = !a.soft_mask;
  o.stop = &g_stop;
  return run_on_device(*scenario, o, std::cout);
}

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
  try {
    return dispatch(argc, argv);
  } catch (const Refusal& e) {
    std::cerr << "nvmesim-hw: " << e.what() << "\n";
    return exit_code::kRefused;
  } catch (const nvmesim::hw::nvme::ControllerFatal& e) {
    std::cerr << "nvmesim-hw: controller failed: " << e.what() << "\n";
    return exit_code::kFatal;
  } catch (const nvmesim::hw::nvme::CommandTimeout& e) {
    std::cerr << "nvmesim-hw: timeout: " << e.what() << " (the controller was reset and released)\n";
    return exit_code::kTimeout;
  } catch (const std::exception& e) {
    std::cerr << "nvmesim-hw: " << e.what() << "\n";
    return exit_code::kError;
  }
}
