// nvmesim-hw: run nvmesim's scenarios and policies on a real NVMe drive over VFIO.
//
//   nvmesim-hw identify --device BDF
//   nvmesim-hw rwtest   --device BDF --allow-write FIRST_LBA:COUNT [--bs BYTES]
//   nvmesim-hw run      --device BDF SCENARIO [--set path=value ...] [--seed N]
//                       [--allow-write FIRST_LBA:COUNT] [-o results.json] [--trace trace.csv]
//                       [--io-timeout-ms N] [--soft-mask]
//   nvmesim-hw bind     BDF      (to vfio-pci; saves the driver it had)
//   nvmesim-hw unbind   BDF      (back to the saved driver)
#include <csignal>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/scenario_load.h"
#include "hw/commands.h"
#include "hw/nvme_error.h"
#include "hw/pci_sysfs.h"
#include "hw/refusal.h"
#include "hw/run_scenario.h"

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
}

int usage(const char* why) {
  if (why) std::cerr << "nvmesim-hw: " << why << "\n";
  std::cerr << "usage:\n"
               "  nvmesim-hw identify --device BDF\n"
               "  nvmesim-hw rwtest   --device BDF --allow-write FIRST_LBA:COUNT [--bs BYTES]\n"
               "  nvmesim-hw run      --device BDF SCENARIO [--set path=value ...] [--seed N]\n"
               "                      [--allow-write FIRST_LBA:COUNT] [-o results.json] [--trace trace.csv]\n"
               "                      [--io-timeout-ms N] [--soft-mask]\n"
               "  nvmesim-hw bind     BDF\n"
               "  nvmesim-hw unbind   BDF\n"
               "SCENARIO is a scenario JSON file or a fio job file, as for `nvmesim run`; its first job runs.\n"
               "Reads only, unless --allow-write names the blocks that may be overwritten.\n"
               "See docs/hw.md.\n";
  return exit_code::kUsage;
}

// A scenario that does not load (or a bad --seed): the loader's message, with the JSON
// path of the offending value, and exit 2 as `nvmesim run`.
int input_error(const nvmesim::InputError& e) {
  std::cerr << "nvmesim-hw: " << e.str() << "\n";
  return exit_code::kUsage;
}

LbaRange parse_range(const std::string& s) {
  size_t colon = s.find(':');
  if (colon == std::string::npos) throw std::invalid_argument("--allow-write wants FIRST_LBA:COUNT, got '" + s + "'");
  return {std::stoull(s.substr(0, colon)), std::stoull(s.substr(colon + 1))};
}

int dispatch(const std::vector<std::string>& args) {
  if (args.empty()) return usage(nullptr);
  const std::string& cmd = args[0];
  std::string device, results, trace, allow;
  uint32_t bs = 65536;
  int64_t io_timeout_ms = 10000;
  bool soft_mask = false;
  std::vector<std::string> positional;
  nvmesim::LoadOptions load;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
      return args[++i];
    };
    if (a == "--device") device = value();
    else if (a == "-o" || a == "--output") results = value();
    else if (a == "--trace") trace = value();
    else if (a == "--allow-write") allow = value();
    else if (a == "--bs") bs = uint32_t(std::stoul(value()));
    else if (a == "--io-timeout-ms") io_timeout_ms = std::stoll(value());
    else if (a == "--soft-mask") soft_mask = true;
    else if (a == "--set") load.overrides.push_back(value());
    else if (a == "--seed") {
      std::string v = value();
      size_t used = 0;
      unsigned long long seed = 0;
      try {
        seed = std::stoull(v, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (v.empty() || used != v.size() || v[0] == '-')
        return input_error({"--seed", "must be a non-negative integer, got '" + v + "'"});
      load.seed = seed;
    } else if (a == "-h" || a == "--help") return usage(nullptr);
    else if (!a.empty() && a[0] == '-') return usage(("unknown option " + a).c_str());
    else positional.push_back(a);
  }

  if (cmd == "bind" || cmd == "unbind") {
    if (positional.size() != 1) return usage("bind/unbind take one PCI address");
    std::string bdf = normalize_bdf(positional[0]);
    std::cout << (cmd == "bind" ? bind_vfio(bdf) : unbind_vfio(bdf)) << "\n";
    return exit_code::kOk;
  }
  if (device.empty()) return usage("--device BDF is required");
  device = normalize_bdf(device);
  std::optional<nvmesim::LoadedScenario> scenario;  // run only
  if (cmd == "run") {
    if (positional.size() != 1) return usage("run takes one scenario file");
    // The simulator's loader, before the device is looked at: the same validation,
    // overrides and resolved document as `nvmesim run`.
    nvmesim::LoadResult loaded = nvmesim::load_scenario_file(positional[0], load);
    if (auto* e = std::get_if<nvmesim::InputError>(&loaded)) return input_error(*e);
    scenario = std::move(std::get<nvmesim::LoadedScenario>(loaded));
  }
  require_vfio_pci(device);  // before anything else is read or touched
  if (cmd == "identify") return identify_command(device, std::cout);
  if (cmd == "rwtest") {
    if (allow.empty()) throw Refusal("rwtest writes: pass --allow-write FIRST_LBA:COUNT to name the blocks it may overwrite");
    return rwtest_command(device, parse_range(allow), bs, &g_stop, std::cout);
  }
  if (cmd == "run") {
    RunOptions o;
    o.bdf = device;
    if (!allow.empty()) o.allow_write = parse_range(allow);
    o.results_path = results;
    o.trace_path = trace;
    o.io_timeout = nvmesim::Duration::ms(io_timeout_ms);
    o.hw_mask = !soft_mask;
    o.stop = &g_stop;
    return run_scenario(*scenario, o, std::cout);
  }
  return usage(("unknown command " + cmd).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return dispatch(args);
  } catch (const Refusal& e) {
    std::cerr << "nvmesim-hw: " << e.what() << "\n";
    return exit_code::kRefused;
  } catch (const nvmesim::hw::nvme::ControllerFatal& e) {
    std::cerr << "nvmesim-hw: controller failed: " << e.what() << "\n";
    return exit_code::kFatal;
  } catch (const nvmesim::hw::nvme::CommandTimeout& e) {
    std::cerr << "nvmesim-hw: timeout: " << e.what() << " (the controller was reset and released)\n";
    return exit_code::kTimeout;
  } catch (const std::invalid_argument& e) {
    return usage(e.what());
  } catch (const std::exception& e) {
    std::cerr << "nvmesim-hw: " << e.what() << "\n";
    return exit_code::kError;
  }
}
