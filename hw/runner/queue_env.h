// The policy API's QueueEnv on a real queue pair. Every policy mechanism is a real one:
// an interrupt is an eventfd wake-up of the queue's hard-IRQ thread, wake_thread wakes
// the IRQ thread through an eventfd, the hrtimer is a timerfd, and masking the vector
// is the kernel's lazy disable_irq_nosync (details in mask_vector).
//
// Locking: one mutex per queue, held by the runner around every policy hook and
// around submission, so hooks see the queue as a hard-IRQ handler would (serialized).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "hw/base/clock.h"
#include "hw/base/unique_fd.h"
#include "hw/hal/irq_vectors.h"
#include "hw/nvme/queue.h"
#include "hw/runner/io_buffers.h"
#include "hw/runner/request_table.h"
#include "policies/api/counters.h"
#include "policies/api/queue_env.h"
#include "sim/command_trace.h"
#include "sim/histogram.h"

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
  uint32_t drain() { return drain_budget(UINT32_MAX); }
  uint32_t drain_budget(uint32_t n);
  bool poll_check() { return qp_.cqe_pending(); }
  void mask_vector();
  void unmask_vector();
  void wake_thread();
  void arm_timer(Duration d);
  void cancel_timer();
  policy::QueueCounters& counters() { return counters_; }
  void mode_change(std::string_view from, std::string_view to, std::string reason);

  // ---- runner side ----
  std::mutex& mutex() { return mu_; }
  uint16_t qid() const { return qp_.qid(); }
  bool has_vector() const { return setup_.has_vector; }
  uint16_t vector() const { return setup_.vector; }
  int wake_fd() const { return wake_fd_.get(); }
  int timer_fd() const { return timer_fd_.get(); }
  void set_measure_window(Time from, Time to) { setup_.measure_from = from; setup_.measure_to = to; }

  // Around a hook: which context consumes CQEs, and when its interrupt started.
  void enter(trace::Context c, Time irq_at = Time::never());
  uint32_t leave();  // CQEs consumed since enter
  // Hard-IRQ thread, vector disabled: hold the interrupt for replay on unmask, masking
  // the vector in hardware on this first arrival (what the lazy kernel path does).
  bool vector_disabled() const { return masked_; }
  void hold_interrupt(Time at);
  void record_irq(Time at, uint32_t cqes);

  // Submission, queue mutex held. False when no command id or SQ slot is free.
  bool can_submit() const { return !requests_.full() && !qp_.sq_full(); }
  uint16_t submit(trace::Op op, uint64_t lba, uint32_t blocks);
  void ring_doorbell();  // one SQ tail doorbell for everything submitted since the last
  uint32_t outstanding() const { return requests_.busy(); }
  Time oldest_submit() const { return requests_.oldest_submit(); }
  // io_getevents(min_nr): waits (mutex held through `lock`) until at least `min_nr`
  // completions the task has not seen yet are there (fewer if fewer are outstanding),
  // or `timeout` passes; then marks them seen.
  void wait_completion(std::unique_lock<std::mutex>& lock, Duration timeout, uint32_t min_nr = 1);

  // Time integral of inflight() up to `at`, in commands x ns (for drive policies).
  double inflight_integral(Time at) const {
    return inflight_integral_ + double(qp_.inflight()) * double((at - integral_at_).count_ns());
  }

  // Results.
  uint64_t completed() const { return completed_; }
  uint64_t measured_completions() const { return measured_; }
  uint64_t errors() const { return errors_; }
  uint64_t stray_cqes() const { return stray_; }
  uint64_t trace_dropped() const { return trace_dropped_; }
  // Latency (submit to CQE consumed) of the measured completions.
  const sim::Histogram& latency() const { return latency_; }
  uint64_t interrupts_held() const { return held_count_; }  // arrivals while disabled
  const std::vector<trace::CommandRecord>& commands() const { return commands_; }
  const std::vector<trace::IrqRecord>& irqs() const { return irq_records_; }
  const std::vector<trace::ModeRecord>& modes() const { return modes_; }
  const nvme::QueuePair& queue() const { return qp_; }

 private:
  void complete(const nvme::Cqe& e, Time seen);
  // Before inflight changes (doorbell written, CQ head moved): close the integral.
  void account_inflight(Time at) {
    inflight_integral_ = inflight_integral(at);
    integral_at_ = at;
  }

  nvme::QueuePair& qp_;
  IoBuffers& buffers_;
  IrqVectors* irqs_;
  const Clock& clock_;
  QueueSetup setup_;
  std::mutex mu_;
  std::condition_variable done_cv_;
  RequestTable requests_;
  std::vector<uint16_t> not_rung_;  // cids submitted since the last doorbell
  UniqueFd wake_fd_;
  UniqueFd timer_fd_;

  trace::Context ctx_ = trace::Context::app;
  Time irq_at_ = Time::never();
  uint32_t ctx_cqes_ = 0;
  bool masked_ = false;     // disable_irq_nosync called, enable_irq not yet
  bool hw_masked_ = false;  // delivery stopped at the device
  bool held_ = false;       // an interrupt arrived while disabled: replay on unmask

  double inflight_integral_ = 0;
  Time integral_at_ = Time::zero();
  policy::QueueCounters counters_;
  uint64_t completed_ = 0, measured_ = 0, errors_ = 0, stray_ = 0, unseen_ = 0;
  uint64_t trace_dropped_ = 0;
  uint64_t held_count_ = 0;
  sim::Histogram latency_;
  std::vector<trace::CommandRecord> commands_;
  std::vector<trace::IrqRecord> irq_records_;
  std::vector<trace::ModeRecord> modes_;
};

static_assert(policy::QueueEnv<HwQueueEnv>);

}  // namespace nvmesim::hw
