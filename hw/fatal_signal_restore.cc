#include "hw/fatal_signal_restore.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>

#include "hw/vfio_release.h"

namespace nvmesim::hw {

namespace {

// Not SIGPIPE: main ignores it, so a closed stdout is an error, not a death.
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL,  SIGFPE,  SIGABRT, SIGTRAP, SIGSYS,
                                 SIGQUIT, SIGHUP, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU,
                                 SIGXFSZ, SIGVTALRM, SIGPROF};

std::atomic<PreparedRestore*> g_restore{nullptr};
std::atomic<int> g_done_fd{-1};
std::atomic<bool> g_in_handler{false};

void on_fatal_signal(int sig) {
  // A second thread faulting meanwhile waits here until the first one kills the process.
  if (g_in_handler.exchange(true))
    for (;;) pause();
  vfio_release::release_all();
  if (PreparedRestore* r = g_restore.load()) r->fire();
  if (int fd = g_done_fd.load(); fd >= 0) {
    char done = 'D';
    [[maybe_unused]] ssize_t n = write(fd, &done, 1);
  }
  // SA_RESETHAND made the action the default again: die of the same signal (a fault
  // re-executes the faulting instruction on return; a sent signal is delivered now).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  raise(sig);
}

}  // namespace

void arm_fatal_signal_restore(PreparedRestore* restore, int done_fd) {
  g_restore = restore;
  g_done_fd = done_fd;
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sigfillset(&sa.sa_mask);  // nothing else runs on this thread while it restores
  sa.sa_flags = SA_RESETHAND;
  for (int sig : kFatalSignals) sigaction(sig, &sa, nullptr);
}

void disarm_fatal_signal_restore() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig : kFatalSignals) sigaction(sig, &dfl, nullptr);
  g_restore = nullptr;
  g_done_fd = -1;
}

}  // namespace nvmesim::hw
