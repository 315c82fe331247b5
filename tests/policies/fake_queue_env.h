// Scripted stand-ins for a runner's QueueEnv and DriveEnv: the test sets the clock,
// inflight and the CQEs visible in the CQ; the fake records every operation a policy
// performs, in order, so a test can check the exact sequence. Like the runners, the
// fake's ops count completions, masks, unmasks, thread_wakeups and mode_changes
// (policies/api/policy.h); timer_expiries and sleeps are runner counts, not seen here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "policies/api/queue_env.h"
#include "vocab/time.h"

namespace nvmesim::policy::testing {

struct ModeChange {
  Time at;
  std::string from;
  std::string to;
  std::string reason;
};

class FakeQueueEnv {
 public:
  // --- scripted state ---
  Time t = Time::zero();
  uint32_t inflight_ = 0;
  uint32_t depth_ = 1024;
  uint32_t pending = 0;  // CQEs visible in the CQ
  int64_t latency_ns = 0;  // the latency each drained CQE adds to latencies_ (whatever their `from`)
  uint32_t stale = 0;      // the next CQEs drained are of commands submitted before the last clear: none added
  uint64_t others_completions = 0;  // CQEs the drive's other queues consumed (drive_completions)

  // --- recorded operations ---
  std::vector<std::string> ops;  // "drain:N", "drain_budget:B:N", "poll_check", "mask", ...
  std::vector<ModeChange> modes;
  std::vector<Duration> timer_arms;
  QueueCounters counters_;
  LatencyBuckets latencies_;
  bool masked = false;
  bool timer_armed = false;

  void advance(Duration d) { t += d; }
  void set_now(Time x) { t = x; }

  // --- QueueEnv ---
  Time now() const { return t; }
  uint32_t inflight() const { return inflight_; }
  uint32_t depth() const { return depth_; }
  bool cqe_pending() const { return pending > 0; }
  uint64_t drive_completions() const { return counters_.completions + others_completions; }
  uint64_t drive_word() const { return shared_word_ ? *shared_word_ : own_word_; }
  void set_drive_word(uint64_t w) { (shared_word_ ? *shared_word_ : own_word_) = w; }
  // The drive's word: the queue's own, or `w`, which other fakes of the same drive share.
  void share_drive_word(uint64_t& w) { shared_word_ = &w; }
  uint32_t drain() {
    const uint32_t n = pending;
    consume(n);
    ops.push_back("drain:" + std::to_string(n));
    return n;
  }
  uint32_t drain_budget(uint32_t b) {
    const uint32_t n = std::min(pending, b);
    consume(n);
    ops.push_back("drain_budget:" + std::to_string(b) + ":" + std::to_string(n));
    return n;
  }
  bool poll_check() {
    ops.push_back("poll_check");
    return pending > 0;
  }
  void mask_vector() {
    ops.push_back("mask");
    ++counters_.masks;
    masked = true;
  }
  void unmask_vector() {
    ops.push_back("unmask");
    ++counters_.unmasks;
    masked = false;
  }
  void wake_thread() {
    ops.push_back("wake");
    ++counters_.thread_wakeups;
  }
  void arm_timer(Duration d) {
    ops.push_back("arm:" + std::to_string(d.count_ns()));
    timer_arms.push_back(d);
    timer_armed = true;
  }
  void cancel_timer() {
    ops.push_back("cancel");
    timer_armed = false;
  }
  QueueCounters& counters() { return counters_; }
  LatencyBuckets& latencies() { return latencies_; }
  void mode_change(std::string_view from, std::string_view to, std::string reason) {
    ops.push_back("mode:" + std::string(from) + "->" + std::string(to));
    ++counters_.mode_changes;
    modes.push_back({t, std::string(from), std::string(to), std::move(reason)});
  }

  bool did(std::string_view op) const {
    return std::find(ops.begin(), ops.end(), op) != ops.end();
  }
  void clear_ops() { ops.clear(); }

 private:
  uint64_t own_word_ = 0;
  uint64_t* shared_word_ = nullptr;

  void consume(uint32_t n) {
    pending -= n;
    inflight_ -= std::min(inflight_, n);
    counters_.completions += n;
    // Scripted: as if each had been submitted in the policy's current window, but `stale`.
    const uint32_t old = std::min(stale, n);
    stale -= old;
    for (uint32_t i = old; i < n; ++i) latencies_.add(latency_ns);
  }
};
static_assert(QueueEnv<FakeQueueEnv>);

class FakeDriveEnv {
 public:
  Time t = Time::zero();
  uint64_t completions = 0;
  uint64_t inflight = 0;
  double integral = 0.0;  // I/O x ns
  uint32_t queues = 4;

  struct SetFeatures {
    Time at;
    uint32_t thr;
    uint32_t time100us;
  };
  std::vector<SetFeatures> writes;
  std::vector<ModeChange> modes;

  // Advance the clock by d, adding `integral_add` (I/O x ns) to the inflight integral and
  // `done` completions. `inflight` (the instantaneous total) is set by the test.
  void run(Duration d, double integral_add, uint64_t done) {
    integral += integral_add;
    t += d;
    completions += done;
  }

  Time now() const { return t; }
  uint64_t completions_total() const { return completions; }
  uint64_t inflight_total() const { return inflight; }
  double inflight_integral() const { return integral; }
  uint32_t io_queue_count() const { return queues; }
  void set_coalescing(uint32_t thr, uint32_t time100us) { writes.push_back({t, thr, time100us}); }
  void mode_change(std::string_view from, std::string_view to, std::string reason) {
    modes.push_back({t, std::string(from), std::string(to), std::move(reason)});
  }
};
static_assert(DriveEnv<FakeDriveEnv>);

}  // namespace nvmesim::policy::testing
