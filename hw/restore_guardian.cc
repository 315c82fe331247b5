#include "hw/restore_guardian.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace nvmesim::hw {

namespace {

// True once `pid` has released its files: gone, or a zombie (exit_files has run).
bool released(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char buf[512];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return true;
  buf[n] = 0;
  const char* paren = std::strrchr(buf, ')');  // comm may hold spaces and parentheses
  return !paren || paren[1] == 0 || paren[2] == 'Z' || paren[2] == 'X';
}

[[noreturn]] void guard(pid_t runner, int read_fd, PreparedRestore& restore) {
  // Ctrl-C reaches the whole process group: the runner stops cleanly on it, the
  // guardian must stay to see how the runner ends.
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  char c = 0;
  ssize_t n;
  do n = read(read_fd, &c, 1);
  while (n < 0 && errno == EINTR);
  if (n == 1 && c == 'D') _exit(0);
  // The runner died without restoring. Wait (at most 30 s) for its files to be released:
  // vfio-pci's unbind would wait for that anyway, and the kernel driver's bind fails
  // while the VFIO group is still owned.
  for (int i = 0; i < 3000 && !released(runner); ++i) {
    timespec ten_ms{0, 10 * 1000 * 1000};
    nanosleep(&ten_ms, nullptr);
  }
  restore.fire();
  static const char msg[] = "nvmesim-hw: the runner died; its guardian gave the device back to its driver\n";
  [[maybe_unused]] ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
  _exit(0);
}

}  // namespace

RestoreGuardian::RestoreGuardian(PreparedRestore& restore) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  pid_t runner = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(p[0]);
    close(p[1]);
    throw std::runtime_error(std::string("fork of the restore guardian: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(p[1]);
    guard(runner, p[0], restore);
  }
  close(p[0]);
  child_ = pid;
  done_ = UniqueFd(p[1]);
}

void RestoreGuardian::dismiss() {
  if (!done_) return;
  char d = 'D';
  [[maybe_unused]] ssize_t n = write(done_.get(), &d, 1);
  done_.reset();
}

RestoreGuardian::~RestoreGuardian() {
  dismiss();
  if (child_ > 0) {
    int status = 0;
    while (waitpid(child_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace nvmesim::hw
