#include "app/run/parallel_runs.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace nvmesim {
namespace {

// Thrown inside a task's progress report to stop it when another part failed.
struct Stopped {};

constexpr auto kProgressEvery = std::chrono::milliseconds(100);

}  // namespace

unsigned default_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

void run_parallel(std::size_t count, unsigned threads, const std::function<void(std::size_t, const ProgressFn&)>& task,
                  const ProgressFn& progress) {
  if (threads <= 1 || count <= 1) {
    for (std::size_t i = 0; i < count; ++i) {
      ProgressFn mine;
      if (progress)
        mine = [&](double f) { progress((static_cast<double>(i) + f) / static_cast<double>(count)); };
      task(i, mine);
    }
    if (progress) progress(1.0);
    return;
  }

  auto done_fraction = std::make_unique<std::atomic<double>[]>(count);
  for (std::size_t i = 0; i < count; ++i) done_fraction[i] = 0.0;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex m;
  std::condition_variable finished_cv;
  std::size_t finished = 0;  // workers that have returned (under m)
  std::exception_ptr failure;  // the first (under m)
  auto fail = [&](std::exception_ptr e) {
    std::lock_guard lock(m);
    if (!failure) failure = e;
    stop = true;
  };

  const auto workers = static_cast<unsigned>(std::min<std::size_t>(threads, count));
  {
    std::vector<std::jthread> pool;
    for (unsigned w = 0; w < workers; ++w) {
      pool.emplace_back([&] {
        while (!stop) {
          const std::size_t i = next++;
          if (i >= count) break;
          const ProgressFn mine = [&, i](double f) {
            done_fraction[i].store(f, std::memory_order_relaxed);
            if (stop) throw Stopped{};
          };
          try {
            task(i, mine);
          } catch (const Stopped&) {
          } catch (...) {
            fail(std::current_exception());
          }
          done_fraction[i].store(1.0, std::memory_order_relaxed);
        }
        std::lock_guard lock(m);
        ++finished;
        finished_cv.notify_all();
      });
    }
    // The calling thread reports progress until the workers are done.
    std::unique_lock lock(m);
    // First right away: a callback that stops the run (Ctrl-C) is heard however short it is.
    for (bool first = true; finished < workers; first = false) {
      if (!first) finished_cv.wait_for(lock, kProgressEvery, [&] { return finished == workers; });
      if (!progress || stop || finished == workers) continue;
      double sum = 0;
      for (std::size_t i = 0; i < count; ++i) sum += done_fraction[i].load(std::memory_order_relaxed);
      lock.unlock();
      try {
        progress(sum / static_cast<double>(count));
      } catch (...) {
        fail(std::current_exception());
      }
      lock.lock();
    }
  }  // joins
  if (failure) std::rethrow_exception(failure);
  // The end is always heard: parts that finish before the first report would otherwise
  // leave the caller's callback never called.
  if (progress) progress(1.0);
}

}  // namespace nvmesim
