// A file the CLI writes (results, traces): opened before the run, so an unwritable path
// is reported at once and not after minutes of simulation, and closed with every write
// checked, so a full disk (or /dev/full) is an error and never a silent success.
#pragma once

#include <fstream>
#include <optional>
#include <string>

namespace nvmesim {

class OutputFile {
 public:
  // "" when opened, else "cannot write PATH: reason".
  std::string open(const std::string& path);
  std::ostream& stream() { return out_; }
  // Flushes and closes; "cannot write PATH: reason" if any write failed.
  std::optional<std::string> close();

 private:
  std::string path_;
  std::ofstream out_;
};

// "cannot write WHAT: reason" from errno (or "write error" when errno says nothing).
std::string cannot_write(const std::string& what);

}  // namespace nvmesim
