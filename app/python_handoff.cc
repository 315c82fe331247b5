#include "app/python_handoff.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace nvmesim {

namespace {

constexpr const char* kPython = "/usr/bin/python3";  // Debian's: it has scipy, pandas, Dask

void prepend_path(const char* var, const std::string& dirs) {
  const char* old = std::getenv(var);
  const std::string value = old && *old ? dirs + ":" + old : dirs;
  setenv(var, value.c_str(), 1);
}

}  // namespace

int exec_python_module(const std::string& module, const std::vector<std::string>& args) {
  prepend_path("PYTHONPATH", std::string(NVMESIM_SOURCE_DIR "/python:") + NVMESIM_BINARY_DIR "/python");
  const std::string hw_cli = NVMESIM_BINARY_DIR "/hw/nvmesim-hw";
  if (!std::getenv("NVMESIM_HW_CLI") && access(hw_cli.c_str(), X_OK) == 0)
    setenv("NVMESIM_HW_CLI", hw_cli.c_str(), 1);
  std::vector<std::string> argv_s = {"python3", "-m", module};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(kPython, argv.data());
  std::cerr << "nvmesim: cannot run " << kPython << " -m " << module << ": " << std::strerror(errno)
            << " (bash .ci/setup installs Debian's python3 and the packages it needs)\n";
  return 1;
}

}  // namespace nvmesim
