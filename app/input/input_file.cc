#include "app/input/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nvmesim {
namespace {

FileError reason(const std::string& path, const std::string& why) { return {"cannot open file " + path + ": " + why}; }
FileError read_failed(const std::string& path, const std::string& why) { return {"cannot read file " + path + ": " + why}; }

// Closes the descriptor on every return path.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::variant<std::string, FileError> read_input_file(const std::string& path, uint64_t max_bytes) {
  if (path.empty()) return FileError{"cannot open file: empty file name"};
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
  if (f.fd < 0) return reason(path, std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) return reason(path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return reason(path, "is a directory");
  if (!S_ISREG(st.st_mode)) return reason(path, "not a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    return reason(path, "larger than the limit of " + std::to_string(max_bytes) + " bytes");
  std::string text;
  // Files in /proc report size 0 and /proc/self/mem fails to read: read in chunks up to
  // the cap instead of trusting st_size.
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return read_failed(path, std::strerror(errno));
    }
    if (n == 0) break;
    if (text.size() + static_cast<uint64_t>(n) > max_bytes)
      return reason(path, "larger than the limit of " + std::to_string(max_bytes) + " bytes");
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

}  // namespace nvmesim
