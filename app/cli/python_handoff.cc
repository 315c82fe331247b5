#include "app/cli/python_handoff.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace nvmesim {

namespace {

constexpr const char* kPython = "/usr/bin/python3";  // Debian's: it has scipy, pandas, Dask

}  // namespace

int exec_python_module(const std::string& module, const std::vector<std::string>& args) {
  // Debian's interpreter with its own prefix: no PYTHONHOME, and a PYTHONPATH of this
  // project's directories alone. A user's PYTHONPATH or PYTHONHOME usually points into
  // another environment (a venv, pyenv, conda), built for another interpreter: its numpy
  // or scipy would shadow Debian's and fail to import.
  unsetenv("PYTHONHOME");
  setenv("PYTHONPATH", NVMESIM_SOURCE_DIR "/python:" NVMESIM_BINARY_DIR "/python", 1);
  const std::string hw_cli = NVMESIM_BINARY_DIR "/hw/nvmesim-hw";
  if (!std::getenv("NVMESIM_HW_CLI") && access(hw_cli.c_str(), X_OK) == 0)
    setenv("NVMESIM_HW_CLI", hw_cli.c_str(), 1);
  // argv[0] is the interpreter's own path: given a bare "python3", CPython looks it up on
  // PATH to find its prefix, and a venv's python3 first on PATH would lend it the venv's
  // (whose site-packages lack scipy).
  std::vector<std::string> argv_s = {kPython, "-m", module};
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
