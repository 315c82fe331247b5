// The io_getevents(min_nr) of this runner: the submitting task of an interrupt-driven
// queue sleeps until the reaper, in whichever context a policy drains, has completed
// enough commands the task has not seen yet. Every call with the queue mutex held.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "hw/runner/io/submitter.h"
#include "vocab/time.h"

namespace nvmesim::hw {

class CompletionWait {
 public:
  explicit CompletionWait(const Submitter& submitter) : submitter_(submitter) {}

  // From the reaper: `n` more completions the task has not seen; wakes the task.
  void completed(uint32_t n) {
    unseen_ += n;
    cv_.notify_all();
  }

  // Waits (the mutex held through `lock`) until at least `min_nr` unseen completions
  // are there (fewer if fewer are outstanding) or `timeout` passes; then marks them seen.
  void wait(std::unique_lock<std::mutex>& lock, Duration timeout, uint32_t min_nr = 1);

 private:
  const Submitter& submitter_;
  std::condition_variable cv_;
  uint64_t unseen_ = 0;
};

}  // namespace nvmesim::hw
