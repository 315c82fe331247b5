// Runs independent tasks on a few threads: task i gets a progress callback for its own
// fraction done; the caller's progress callback sees the mean over all tasks, ends with
// 1.0 when every task has finished, and is only ever called on the calling thread (a
// Python callback takes the interpreter lock there).
// If a task or the caller's callback throws, the other tasks stop at their next progress
// report and the first exception is rethrown once every thread has finished.
#pragma once

#include <cstddef>
#include <functional>

namespace nvmesim {

using ProgressFn = std::function<void(double)>;

// `threads` == 1: the tasks run one after another on the calling thread.
void run_parallel(std::size_t count, unsigned threads, const std::function<void(std::size_t, const ProgressFn&)>& task,
                  const ProgressFn& progress);

// The machine's cores (at least 1): the default of --threads.
unsigned default_threads();

}  // namespace nvmesim
