// A file the CLI writes (results, traces): opened before the run, so an unwritable path
// is reported at once and not after minutes of simulation, and closed with every write
// checked, so a full disk (or /dev/full) is an error and never a silent success. The
// first failed write's errno is kept for the message.
#pragma once

#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace nvmesim {

class OutputFile {
 public:
  OutputFile() : out_(&buf_) {}
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // "" when opened (created or truncated), else "cannot write PATH: reason".
  std::string open(const std::string& path);
  std::ostream& stream() { return out_; }
  // Flushes and closes; "cannot write PATH: reason" if any write or the close failed.
  std::optional<std::string> close();

 private:
  // A buffer over a file descriptor that remembers the first write error.
  class FdBuf : public std::streambuf {
   public:
    FdBuf();
    int fd = -1;
    int error = 0;  // errno of the first failed write
    bool flush_all();

   protected:
    int_type overflow(int_type c) override;
    int sync() override { return flush_all() ? 0 : -1; }

   private:
    std::vector<char> data_;
  };

  std::string path_;
  FdBuf buf_;
  std::ostream out_;
};

// "cannot write WHAT: reason" from errno (or "write error" when errno says nothing).
std::string cannot_write(const std::string& what, int err);

}  // namespace nvmesim
