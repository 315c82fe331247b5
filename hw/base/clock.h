// The time source of the driver, passed in rather than read from a global, so unit
// tests can run a timeout of seconds in no time.
#pragma once

#include "vocab/time.h"

namespace nvmesim::hw {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Time now() const = 0;
  virtual void sleep(Duration d) = 0;
};

// CLOCK_MONOTONIC, with Time zero at construction.
class MonotonicClock final : public Clock {
 public:
  MonotonicClock();
  Time now() const override;
  void sleep(Duration d) override;
  // Raw CLOCK_MONOTONIC in ns, for converting timer deadlines.
  static int64_t raw_ns();

 private:
  int64_t origin_;
};

}  // namespace nvmesim::hw
