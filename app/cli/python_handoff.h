// `nvmesim ab` and `nvmesim compare` live in the Python package (scipy's statistics, Dask,
// matplotlib's plots), so the CLI hands their arguments, unchanged, to
// `/usr/bin/python3 -m nvmesim.<command>` in place of this process: the child's exit code
// is the CLI's, and Ctrl-C reaches it directly.
#pragma once

#include <string>
#include <vector>

namespace nvmesim {

// Replaces the process with `/usr/bin/python3 -m <module> args...`; returns only when that
// fails (1, with the reason on stderr). argv[0] is "/usr/bin/python3", PYTHONHOME is unset
// and PYTHONPATH is this build's package directories alone (so a build that was never
// installed works too, and a venv's or pyenv's python3 first on PATH, or a PYTHONPATH
// into another environment, does not change the interpreter's packages); NVMESIM_HW_CLI defaults to this
// build's nvmesim-hw when it exists (for `ab --hw-device`).
int exec_python_module(const std::string& module, const std::vector<std::string>& args);

}  // namespace nvmesim
