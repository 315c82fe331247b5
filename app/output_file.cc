#include "app/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nvmesim {

std::string cannot_write(const std::string& what, int err) {
  return "cannot write " + what + ": " + (err ? std::strerror(err) : "write error");
}

OutputFile::FdBuf::FdBuf() : data_(1 << 16) { setp(data_.data(), data_.data() + data_.size()); }

bool OutputFile::FdBuf::flush_all() {
  const char* p = pbase();
  while (p < pptr() && error == 0) {
    ssize_t n = ::write(fd, p, static_cast<std::size_t>(pptr() - p));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) error = n < 0 ? errno : EIO;
    else p += n;
  }
  setp(data_.data(), data_.data() + data_.size());  // after an error the rest is dropped
  return error == 0;
}

OutputFile::FdBuf::int_type OutputFile::FdBuf::overflow(int_type c) {
  if (!flush_all()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

OutputFile::~OutputFile() {
  if (buf_.fd >= 0) ::close(buf_.fd);
}

std::string OutputFile::open(const std::string& path) {
  path_ = path;
  buf_.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  return buf_.fd >= 0 ? "" : cannot_write(path, errno);
}

std::optional<std::string> OutputFile::close() {
  if (buf_.fd < 0) return std::nullopt;
  buf_.flush_all();
  int fd = buf_.fd;
  buf_.fd = -1;
  if (::close(fd) != 0 && buf_.error == 0) buf_.error = errno;
  if (buf_.error != 0 || !out_) return cannot_write(path_, buf_.error);
  return std::nullopt;
}

}  // namespace nvmesim
