#include "app/input/scenario_files.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef NVMESIM_SCENARIOS_DIR
#define NVMESIM_SCENARIOS_DIR "scenarios"
#endif

namespace nvmesim {
namespace fs = std::filesystem;

namespace {

bool exists_quietly(const fs::path& p) {
  std::error_code ec;  // a name too long or a path through a file is just "not there"
  return fs::exists(p, ec);
}

}  // namespace

std::string resolve_scenario_file(const std::string& base_dir, const std::string& file) {
  fs::path p(file);
  if (p.is_absolute()) return p.string();
  fs::path b = fs::path(base_dir) / p;
  if (exists_quietly(b)) return b.string();
  fs::path shipped = fs::path(default_scenarios_dir()) / p;  // e.g. "profiles/x.json"
  if (exists_quietly(shipped)) return shipped.string();
  return b.string();
}

std::string default_scenarios_dir() {
  if (const char* env = std::getenv("NVMESIM_SCENARIOS")) return env;
  return NVMESIM_SCENARIOS_DIR;
}

}  // namespace nvmesim
