// Runs one policy on one HwQueueEnv with real execution contexts: a hard-IRQ thread
// blocked on the vector's eventfd (on_interrupt), an IRQ thread woken through an
// eventfd (on_thread, with fsleep as a real sleep), a softirq thread on the queue's
// timerfd (on_timer), and the submitting task (on_app_poll). Generic over the hooks:
// any QueuePolicy (policies/api/policy_concepts.h) on this env drops in.
#pragma once

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "hw/base/unique_fd.h"
#include "hw/runner/env/queue_env.h"
#include "policies/api/policy_concepts.h"
#include "policies/api/steps.h"

namespace nvmesim::hw {

template <policy::QueuePolicy<HwQueueEnv> P>
class QueueRunner {
 public:
  QueueRunner(HwQueueEnv& env, P& policy, IrqVectors* irqs)
      : env_(env), policy_(policy), irqs_(irqs), stop_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~QueueRunner() { stop(); }

  void start() {
    if constexpr (P::kUsesVector) {
      if (irqs_ && env_.has_vector()) hardirq_ = std::thread([this] { hardirq_loop(); });
    }
    irq_thread_ = std::thread([this] { irq_thread_loop(); });
    softirq_ = std::thread([this] { softirq_loop(); });
  }

  void stop() {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(stop_fd_.get(), &one, sizeof one);
    stopping_ = true;
    for (std::thread* t : {&hardirq_, &irq_thread_, &softirq_})
      if (t->joinable()) t->join();
  }

  // CPU time so far (CLOCK_THREAD_CPUTIME_ID of each thread, ns) of the threads that
  // stand in for the kernel contexts; 0 for a thread this policy does not start. Call
  // between start() and stop().
  struct ContextCpu {
    int64_t hardirq = 0, softirq = 0, irq_thread = 0;
  };
  ContextCpu cpu_time() {
    return {thread_cpu_ns(hardirq_), thread_cpu_ns(softirq_), thread_cpu_ns(irq_thread_)};
  }

  // One look by the submitting task at its CQ, for polled policies; CQEs consumed.
  uint32_t app_poll() {
    std::lock_guard lock(env_.mutex());
    env_.enter(trace::Context::app);
    uint32_t n = policy_.on_app_poll(env_);
    env_.leave();
    return n;
  }

 private:
  // Waits for `fd` or the stop signal; false on stop.
  bool wait_for(int fd) {
    pollfd p[2] = {{fd, POLLIN, 0}, {stop_fd_.get(), POLLIN, 0}};
    for (;;) {
      int r = poll(p, 2, -1);
      if (r < 0) continue;  // EINTR from a signal: the stop fd says whether to leave
      if (p[1].revents) return false;
      if (p[0].revents) return true;
    }
  }

  static int64_t thread_cpu_ns(std::thread& t) {
    clockid_t id;
    timespec ts{};
    if (!t.joinable() || pthread_getcpuclockid(t.native_handle(), &id) != 0 || clock_gettime(id, &ts) != 0)
      return 0;
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  }

  static bool consume(int fd) {
    uint64_t n = 0;
    return read(fd, &n, sizeof n) == sizeof n && n > 0;
  }

  // Real-time priority like a kernel IRQ thread, when allowed; otherwise runs as is.
  static void try_realtime() {
    sched_param sp{};
    sp.sched_priority = 50;
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
  }

  void hardirq_loop() {
    try_realtime();
    int fd = irqs_->fd(env_.vector());
    while (wait_for(fd)) {
      if (!consume(fd)) continue;
      Time at = env_.now();
      std::lock_guard lock(env_.mutex());
      if (env_.vector_disabled()) {
        env_.hold_interrupt(at);
        continue;
      }
      env_.enter(trace::Context::hardirq, at);
      policy_.on_interrupt(env_);
      env_.recorder().interrupt(at, env_.leave());
    }
  }

  void irq_thread_loop() {
    try_realtime();
    while (wait_for(env_.wake_fd())) {
      consume(env_.wake_fd());
      for (;;) {
        policy::ThreadStep step;
        {
          std::lock_guard lock(env_.mutex());
          env_.enter(trace::Context::irq_thread);
          step = policy_.on_thread(env_);
          env_.leave();
          if (step.kind == policy::ThreadStep::Kind::sleep) ++env_.counters().sleeps;
        }
        if (step.kind == policy::ThreadStep::Kind::park || stopping_) break;
        if (step.kind == policy::ThreadStep::Kind::resched) sched_yield();
        if (step.kind == policy::ThreadStep::Kind::sleep) fsleep(step.duration);
      }
    }
  }

  // The kernel's fsleep: busy-wait up to 10 us, above that an hrtimer sleep with
  // usleep_range's slack of a quarter (set as this thread's timer slack).
  void fsleep(Duration d) {
    if (d <= Duration::us(10)) {
      Time end = env_.now() + d;
      while (env_.now() < end) {
      }
      return;
    }
    prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(d.count_ns() / 4), 0, 0, 0);
    timespec ts{time_t(d.count_ns() / 1000000000), long(d.count_ns() % 1000000000)};
    clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
  }

  void softirq_loop() {
    while (wait_for(env_.timer_fd())) {
      if (!consume(env_.timer_fd())) continue;
      std::lock_guard lock(env_.mutex());
      ++env_.counters().timer_expiries;
      env_.enter(trace::Context::softirq);
      policy::TimerStep step = policy_.on_timer(env_);
      env_.leave();
      if (step.rearm) env_.arm_timer(step.period);
    }
  }

  HwQueueEnv& env_;
  P& policy_;
  IrqVectors* irqs_;
  UniqueFd stop_fd_;
  std::atomic<bool> stopping_{false};
  std::thread hardirq_, irq_thread_, softirq_;
};

}  // namespace nvmesim::hw
