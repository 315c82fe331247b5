// The prepared restore on every way out, on plain files standing in for sysfs: fired
// once on the normal path, by the fatal-signal handler before the process dies of the
// signal, and by the guardian after the runner is killed with SIGKILL.
#include "hw/driver_restore.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hw/fatal_signal_restore.h"
#include "hw/restore_guardian.h"

namespace nvmesim::hw {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/nvmesim-restore-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Two "sysfs files" that exist (opened in advance) and one created only later (opened
// when fired).
std::vector<SysfsWrite> plan(const TempDir& d) {
  std::ofstream(d.file("unbind")).flush();
  std::ofstream(d.file("override")).flush();
  return {{d.file("unbind"), "0000:00:04.0"}, {d.file("override"), "\n"}, {d.file("late"), "0000:00:04.0"}};
}

// Reads `fd` to its end: returns once every process holding its other end is gone.
std::string drain(int fd) {
  std::string out;
  char buf[256];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) != 0;)
    if (n > 0) out.append(buf, size_t(n));
  close(fd);
  return out;
}

TEST(PreparedRestore, FiresEveryWriteOnce) {
  TempDir d;
  PreparedRestore r(plan(d));
  std::ofstream(d.file("late")).flush();  // appears after the plan was prepared
  EXPECT_TRUE(r.fire());
  EXPECT_FALSE(r.fire());
  EXPECT_EQ(slurp(d.file("unbind")), "0000:00:04.0");
  EXPECT_EQ(slurp(d.file("override")), "\n");
  EXPECT_EQ(slurp(d.file("late")), "0000:00:04.0");
}

TEST(PreparedRestore, AMissingFileDoesNotStopTheOthers) {
  TempDir d;
  PreparedRestore r(plan(d));  // "late" never appears
  EXPECT_TRUE(r.fire());
  EXPECT_EQ(slurp(d.file("override")), "\n");
  EXPECT_FALSE(fs::exists(d.file("late")));
}

void expect_death_restores(int sig) {
  TempDir d;
  int done[2];
  ASSERT_EQ(pipe(done), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(done[0]);
    static PreparedRestore* r = new PreparedRestore(plan(d));
    arm_fatal_signal_restore(r, done[1]);
    raise(sig);
    _exit(99);  // not reached: the handler dies of the signal
  }
  close(done[1]);
  EXPECT_EQ(drain(done[0]), "D");
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_EQ(slurp(d.file("unbind")), "0000:00:04.0");
  EXPECT_EQ(slurp(d.file("override")), "\n");
}

TEST(FatalSignalRestore, SegvRestoresThenDiesOfSegv) { expect_death_restores(SIGSEGV); }
TEST(FatalSignalRestore, AbortRestoresThenDiesOfAbort) { expect_death_restores(SIGABRT); }
TEST(FatalSignalRestore, HangupRestoresThenDiesOfHangup) { expect_death_restores(SIGHUP); }

// A runner (child) with a guardian; `how` ends the runner. Returns what the guardian
// printed, once the runner and the guardian are both gone.
std::string run_guarded(const TempDir& d, const std::string& how) {
  int out[2];
  EXPECT_EQ(pipe(out), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(out[0]);
    dup2(out[1], STDERR_FILENO);
    close(out[1]);
    PreparedRestore r(plan(d));
    RestoreGuardian g(r);
    if (how == "sigkill") raise(SIGKILL);
    if (how == "dismissed") {
      r.fire();
      g.dismiss();
    }
    _exit(0);  // "exit": gone without a word to the guardian
  }
  close(out[1]);
  std::string said = drain(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return said;
}

TEST(RestoreGuardian, RestoresAfterSigkill) {
  TempDir d;
  std::string said = run_guarded(d, "sigkill");
  EXPECT_NE(said.find("guardian gave the device back"), std::string::npos) << said;
  EXPECT_EQ(slurp(d.file("unbind")), "0000:00:04.0");
  EXPECT_EQ(slurp(d.file("override")), "\n");
}

TEST(RestoreGuardian, RestoresAfterAnExitWithoutDismissal) {
  TempDir d;
  EXPECT_NE(run_guarded(d, "exit").find("guardian gave the device back"), std::string::npos);
  EXPECT_EQ(slurp(d.file("override")), "\n");
}

TEST(RestoreGuardian, DismissedDoesNothing) {
  TempDir d;
  EXPECT_EQ(run_guarded(d, "dismissed"), "");
  // The runner's own restore wrote once; the guardian did not write again.
  EXPECT_EQ(slurp(d.file("unbind")), "0000:00:04.0");
}

}  // namespace
}  // namespace nvmesim::hw
