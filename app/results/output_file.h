// A file the CLI writes (results, traces, fitted profiles, reports), written atomically:
// open() creates a temporary file beside the target (so an unwritable path is reported at
// once, not after minutes of simulation, and the target is not touched), every write is
// checked (a full disk is an error, never a silent success; the first failed write's
// errno is kept for the message), and commit() renames the temporary over the target only
// when all of it was written. On any failure, or when the OutputFile is destroyed before
// commit(), the temporary is removed and the previous file is left as it was.
//
// A target that exists and is not a regular file (a device such as /dev/null or
// /dev/full, a FIFO) cannot be replaced by a rename: it is opened and written in place.
// A symbolic link is followed: the file it names is replaced, the link stays.
#pragma once

#include <initializer_list>
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
  ~OutputFile();  // removes the temporary if not committed

  // "" when the temporary (or the device) is open for writing, else "cannot write PATH: reason".
  std::string open(const std::string& path);
  std::ostream& stream() { return out_; }
  // Flushes and closes the temporary, leaving the target as it was; "cannot write PATH:
  // reason" if any write or the close failed (the temporary is then removed).
  std::optional<std::string> finish();
  // finish(), then the rename over the target; the error names the target.
  std::optional<std::string> commit();

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

  void discard();

  std::string path_;    // the target as given (for messages)
  std::string target_;  // the file the rename replaces (path_, or where its link points)
  std::string temp_;    // the temporary beside target_; empty when writing in place
  bool finished_ = false;
  FdBuf buf_;
  std::ostream out_;
};

// Several files of one command, all or none: finishes every one, then renames each over
// its target; the first failure (a failed write replaces no target).
std::optional<std::string> commit_all(std::initializer_list<OutputFile*> files);

// "cannot write WHAT: reason" from errno (or "write error" when errno says nothing).
std::string cannot_write(const std::string& what, int err);

}  // namespace nvmesim
