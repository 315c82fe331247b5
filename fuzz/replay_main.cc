// Replays files through a fuzz target's LLVMFuzzerTestOneInput without libFuzzer, so the
// regression inputs run in every build (GCC, Release, sanitizers) as an ordinary ctest.
// Usage: <target>_replay FILE_OR_DIR...   (a directory: its files in name order, dotfiles skipped)
// The fuzzers' limits hold here too: a watchdog fails the run, naming the input, when one
// takes longer than -timeout=10 or the process's RSS passes -rss_limit_mb=1024 (it stops
// the process before a runaway allocation takes the machine's memory). A crash, an
// assertion or an escaped exception aborts, which fails the test as well.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "sim/address_sanitizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kTimeout = std::chrono::seconds(10);  // the fuzz stage's -timeout
constexpr long kRssLimitMiB = 1024;                  // and its -rss_limit_mb

// What the watchdog reads: the input being replayed and since when.
std::atomic<const char*> current_input{nullptr};
std::atomic<int64_t> current_start_ns{0};

long rss_mib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

[[noreturn]] void fail(const char* what) {
  const char* in = current_input.load();
  std::fprintf(stderr, "FAIL %s: %s\n", in ? in : "(between inputs)", what);
  std::fflush(stderr);
  _exit(1);
}

void watchdog() {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (rss_mib() > kRssLimitMiB) fail("RSS over 1024 MiB");
    int64_t start = current_start_ns.load();
    if (start && Clock::now().time_since_epoch() - std::chrono::nanoseconds(start) > kTimeout)
      fail("took more than 10 s");
  }
}

std::vector<fs::path> inputs(int argc, char** argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path a(argv[i]);
    if (fs::is_directory(a)) {
      std::vector<fs::path> in_dir;
      for (const auto& e : fs::directory_iterator(a))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') in_dir.push_back(e.path());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else {
      files.push_back(a);
    }
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
    return 2;
  }
  // Without ASan (which reserves terabytes of shadow), also cap the address space, so one
  // huge allocation fails at once instead of between two watchdog checks.
  if (!nvmesim::sim::kAddressSanitizer) {
    const rlim_t cap = 4ull * kRssLimitMiB << 20;
    rlimit as{cap, cap};
    setrlimit(RLIMIT_AS, &as);
  }
  const auto files = inputs(argc, argv);
  std::thread(watchdog).detach();
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", f.c_str());
      return 1;
    }
    std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "%s\n", f.c_str());
    current_input = f.c_str();
    current_start_ns = Clock::now().time_since_epoch().count();
    LLVMFuzzerTestOneInput(data.data(), data.size());
    current_start_ns = 0;
    current_input = nullptr;
  }
  std::fprintf(stderr, "replayed %zu input(s)\n", files.size());
  return 0;
}
