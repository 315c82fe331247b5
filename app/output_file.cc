#include "app/output_file.h"

#include <cerrno>
#include <cstring>

namespace nvmesim {

std::string cannot_write(const std::string& what) {
  return "cannot write " + what + ": " + (errno ? std::strerror(errno) : "write error");
}

std::string OutputFile::open(const std::string& path) {
  path_ = path;
  errno = 0;
  out_.open(path, std::ios::out | std::ios::trunc | std::ios::binary);
  return out_.is_open() ? "" : cannot_write(path);
}

std::optional<std::string> OutputFile::close() {
  if (!out_.is_open()) return std::nullopt;
  errno = 0;
  out_.flush();
  bool failed = !out_;
  int flush_errno = errno;
  out_.close();
  if (!failed && !out_) failed = true;  // close flushes what remained buffered
  else errno = flush_errno;
  if (failed) return cannot_write(path_);
  return std::nullopt;
}

}  // namespace nvmesim
