// The policy API's QueueEnv on a real queue pair: the seam the policies see. Every
// policy mechanism is a real one: an interrupt is an eventfd wake-up of the queue's
// hard-IRQ thread, wake_thread wakes the IRQ thread through an eventfd, the hrtimer is a
// timerfd, and masking the vector is the kernel's lazy disable_irq_nosync (details in
// mask_vector). Draining runs the one CQ reaper and hands each CQE to the submitter
// (which command), the recorder (results, trace) and the completion wait (the task).
//
// The other jobs of a queue live in their own types, owned here so that one mutex
// covers them all: Submitter (submission, doorbells), CompletionWait (the task's
// io_getevents), QueueRecorder (latency, trace rows, counts).
//
// Locking: one mutex per queue, held by the runner around every policy hook and
// around submission, so hooks see the queue as a hard-IRQ handler would (serialized).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "hw/base/clock.h"
#include "hw/base/unique_fd.h"
#include "hw/hal/irq_vectors.h"
#include "hw/nvme/queue.h"
#include "hw/runner/io/completion_wait.h"
#include "hw/runner/io/inflight_integral.h"
#include "hw/runner/io/io_buffers.h"
#include "hw/runner/io/submitter.h"
#include "hw/runner/results/queue_recorder.h"
#include "policies/api/counters.h"
#include "policies/api/queue_env.h"
#include "vocab/command_trace.h"

namespace nvmesim::hw {

struct QueueSetup {
  uint32_t nsid = 1;
  bool has_vector = false;
  uint16_t vector = 0;
  // Mask in hardware (VFIO trigger detach) when an interrupt arrives while disabled;
  // false keeps the mask purely in software (the handler thread still wakes).
  bool hw_mask = true;
  Time measure_from = Time::zero();  // completions of commands submitted earlier are warm-up
  Time measure_to = Time::never();
  size_t trace_limit = 1u << 20;     // records kept per kind; later ones are counted only
  bool watch_latency = false;        // keep latencies() for the policy (kWatchesLatency)
  // The controller's count of completions on all its I/O queues, shared by its queues'
  // envs (drive_completions); none: the queue's own count.
  std::atomic<uint64_t>* drive_completions = nullptr;
  // The word the controller's queues' policies share (drive_word); none: the queue's own.
  std::atomic<uint64_t>* drive_word = nullptr;
};

class HwQueueEnv {
 public:
  HwQueueEnv(nvme::QueuePair& qp, IoBuffers& buffers, IrqVectors* irqs, const Clock& clock,
             QueueSetup setup);

  // ---- QueueEnv: called from policy hooks, queue mutex held ----
  Time now() const { return clock_.now(); }
  uint32_t inflight() const { return qp_.inflight(); }
  uint32_t depth() const { return qp_.depth(); }
  bool cqe_pending() const { return qp_.cqe_pending(); }
  uint64_t drive_completions() const {
    return setup_.drive_completions ? setup_.drive_completions->load(std::memory_order_relaxed) : counters_.completions;
  }
  uint64_t drive_word() const {
    return setup_.drive_word ? setup_.drive_word->load(std::memory_order_relaxed) : own_word_;
  }
  void set_drive_word(uint64_t w) {
    if (setup_.drive_word) {
      setup_.drive_word->store(w, std::memory_order_relaxed);
    } else {
      own_word_ = w;
    }
  }
  uint32_t drain() { return drain_budget(UINT32_MAX); }
  uint32_t drain_budget(uint32_t n);
  bool poll_check() { return qp_.cqe_pending(); }
  void mask_vector();
  void unmask_vector();
  void wake_thread();
  void arm_timer(Duration d);
  void cancel_timer();
  policy::QueueCounters& counters() { return counters_; }
  policy::LatencyBuckets& latencies() { return latencies_; }
  void mode_change(std::string_view from, std::string_view to, std::string reason);

  // ---- runner side ----
  std::mutex& mutex() { return mu_; }
  uint16_t qid() const { return qp_.qid(); }
  bool has_vector() const { return setup_.has_vector; }
  uint16_t vector() const { return setup_.vector; }
  int wake_fd() const { return wake_fd_.get(); }
  int timer_fd() const { return timer_fd_.get(); }

  // Around a hook: which context consumes CQEs, and when its interrupt started.
  void enter(trace::Context c, Time irq_at = Time::never());
  uint32_t leave();  // CQEs consumed since enter
  // Hard-IRQ thread, vector disabled: hold the interrupt for replay on unmask, masking
  // the vector in hardware on this first arrival (what the lazy kernel path does).
  bool vector_disabled() const { return masked_; }
  void hold_interrupt(Time at);

  // Time integral of inflight() up to `at`, in commands x ns (for drive policies).
  double inflight_integral(Time at) const { return inflight_.at(at, qp_.inflight()); }

  Submitter& submitter() { return submitter_; }
  const Submitter& submitter() const { return submitter_; }
  CompletionWait& completion_wait() { return completion_wait_; }
  QueueRecorder& recorder() { return recorder_; }
  const QueueRecorder& recorder() const { return recorder_; }
  const nvme::QueuePair& queue() const { return qp_; }

 private:
  // One CQE consumed at `seen`; true when it finished an outstanding command.
  bool complete(const nvme::Cqe& e, Time seen);

  nvme::QueuePair& qp_;
  IrqVectors* irqs_;
  const Clock& clock_;
  QueueSetup setup_;
  std::mutex mu_;
  InflightIntegral inflight_;
  Submitter submitter_;
  CompletionWait completion_wait_{submitter_};
  QueueRecorder recorder_;
  UniqueFd wake_fd_;
  UniqueFd timer_fd_;

  trace::Context ctx_ = trace::Context::app;
  Time irq_at_ = Time::never();
  uint32_t ctx_cqes_ = 0;
  bool masked_ = false;     // disable_irq_nosync called, enable_irq not yet
  bool hw_masked_ = false;  // delivery stopped at the device
  bool held_ = false;       // an interrupt arrived while disabled: replay on unmask
  policy::QueueCounters counters_;
  policy::LatencyBuckets latencies_;
  uint64_t own_word_ = 0;  // drive_word without a controller's
};

static_assert(policy::QueueEnv<HwQueueEnv>);

}  // namespace nvmesim::hw
