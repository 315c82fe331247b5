// Reading one input file (scenario, profile, CDF, fio job file) safely: only a regular
// file, at most limits::kMaxInputFileBytes, every failure a message with the reason
// ("is a directory", "File name too long", "larger than ..."), never a crash or an
// exception. A directory, a device (/dev/zero) or a FIFO is refused before reading.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

namespace nvmesim {

struct FileError {
  std::string message;  // "cannot open file PATH: reason"
};

// The file's content, or the reason it cannot be read.
std::variant<std::string, FileError> read_input_file(const std::string& path, uint64_t max_bytes);

}  // namespace nvmesim
