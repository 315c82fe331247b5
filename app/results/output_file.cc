#include "app/results/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
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

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() {
  if (buf_.fd >= 0) ::close(buf_.fd);
  buf_.fd = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
}

namespace {

// Where a rename must go to replace what `path` names: the file at the end of its links.
// A link to nowhere yet is replaced by the file it names (created).
std::string rename_target(const std::string& path) {
  std::string target = path;
  for (int hops = 0; hops < 40; ++hops) {
    char link[PATH_MAX];
    ssize_t n = ::readlink(target.c_str(), link, sizeof link - 1);
    if (n < 0) break;
    std::string to(link, static_cast<std::size_t>(n));
    if (to.front() != '/') {
      auto slash = target.rfind('/');
      if (slash != std::string::npos) to = target.substr(0, slash + 1) + to;
    }
    target = to;
  }
  return target;
}

// A name in the target's directory no other writer uses: .NAME.PID.N.tmp.
std::string temp_name(const std::string& target, unsigned n) {
  auto slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  return dir + "." + base + "." + std::to_string(::getpid()) + "." + std::to_string(n) + ".tmp";
}

}  // namespace

std::string OutputFile::open(const std::string& path) {
  discard();
  path_ = path;
  finished_ = false;
  buf_.error = 0;
  if (path.empty()) return cannot_write("\"\"", ENOENT);
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) return cannot_write(path, EISDIR);
  if (exists && !S_ISREG(st.st_mode)) {  // a device or a FIFO: written in place
    buf_.fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    return buf_.fd >= 0 ? "" : cannot_write(path, errno);
  }
  target_ = rename_target(path);
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temp = temp_name(target_, counter++);
    // 0666 as open(O_CREAT) gives a new file, less the umask.
    buf_.fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (buf_.fd >= 0) {
      temp_ = temp;
      return "";
    }
    if (errno != EEXIST) return cannot_write(path, errno);
  }
  return cannot_write(path, EEXIST);
}

std::optional<std::string> OutputFile::finish() {
  if (finished_ || buf_.fd < 0) return std::nullopt;
  buf_.flush_all();
  int fd = buf_.fd;
  buf_.fd = -1;
  if (::close(fd) != 0 && buf_.error == 0) buf_.error = errno;
  if (buf_.error != 0 || !out_) {
    int err = buf_.error;
    discard();
    return cannot_write(path_, err);
  }
  finished_ = true;
  return std::nullopt;
}

std::optional<std::string> OutputFile::commit() {
  if (auto e = finish()) return e;
  if (temp_.empty()) return std::nullopt;  // written in place, or never opened
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    int err = errno;
    discard();
    return cannot_write(path_, err);
  }
  temp_.clear();
  return std::nullopt;
}

std::optional<std::string> commit_all(std::initializer_list<OutputFile*> files) {
  for (OutputFile* f : files)
    if (auto e = f->finish()) return e;
  for (OutputFile* f : files)
    if (auto e = f->commit()) return e;
  return std::nullopt;
}

}  // namespace nvmesim
