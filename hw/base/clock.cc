#include "hw/base/clock.h"

#include <cerrno>
#include <ctime>

namespace nvmesim::hw {

int64_t MonotonicClock::raw_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

MonotonicClock::MonotonicClock() : origin_(raw_ns()) {}

Time MonotonicClock::now() const { return Time::from_ns(raw_ns() - origin_); }

void MonotonicClock::sleep(Duration d) {
  if (d <= Duration::zero()) return;
  timespec ts{time_t(d.count_ns() / 1000000000), long(d.count_ns() % 1000000000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {
  }
}

}  // namespace nvmesim::hw
