#include "hw/runner/io/completion_wait.h"

#include <algorithm>
#include <chrono>

namespace nvmesim::hw {

void CompletionWait::wait(std::unique_lock<std::mutex>& lock, Duration timeout, uint32_t min_nr) {
  // No more than can still arrive (unseen + outstanding stays constant meanwhile).
  uint64_t want = std::max<uint64_t>(1, std::min<uint64_t>(min_nr, unseen_ + submitter_.outstanding()));
  if (unseen_ < want)
    cv_.wait_for(lock, std::chrono::nanoseconds(timeout.count_ns()), [&] { return unseen_ >= want; });
  unseen_ = 0;  // the task has seen them (io_getevents returned)
}

}  // namespace nvmesim::hw
