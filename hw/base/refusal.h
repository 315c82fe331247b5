// A safety refusal: the tool will not touch the device as asked (wrong driver, writes
// without --allow-write, a drive in use). Distinct from failures so the exit code says
// "refused", and the message says what to do instead.
#pragma once

#include <stdexcept>

namespace nvmesim::hw {

struct Refusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace nvmesim::hw
