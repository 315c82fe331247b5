// A problem with user input, named by the JSON pointer of the offending value (or the
// file and line of a fio job file). The loaders return these; only the CLI and the
// Python edge turn them into exit codes and exceptions.
#pragma once

#include <string>

namespace nvmesim {

struct InputError {
  std::string path;     // e.g. "/jobs/0/iodepth"
  std::string message;  // e.g. "must be >= 1, got 0"
  std::string str() const { return path.empty() ? message : path + ": " + message; }
};

}  // namespace nvmesim
