#include "hw/runner/env/queue_env.h"

#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace nvmesim::hw {

HwQueueEnv::HwQueueEnv(nvme::QueuePair& qp, IoBuffers& buffers, IrqVectors* irqs,
                       const Clock& clock, QueueSetup setup)
    : qp_(qp),
      irqs_(irqs),
      clock_(clock),
      setup_(setup),
      submitter_(qp, buffers, clock, inflight_, setup.nsid),
      recorder_(qp.qid(), setup.measure_from, setup.measure_to, setup.trace_limit),
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      timer_fd_(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) {
  if (!wake_fd_ || !timer_fd_) throw std::runtime_error("eventfd/timerfd creation failed");
}

void HwQueueEnv::enter(trace::Context c, Time irq_at) {
  ctx_ = c;
  irq_at_ = irq_at;
  ctx_cqes_ = 0;
}

uint32_t HwQueueEnv::leave() {
  uint32_t n = ctx_cqes_;
  ctx_ = trace::Context::app;
  irq_at_ = Time::never();
  return n;
}

uint32_t HwQueueEnv::drain_budget(uint32_t n) {
  Time seen = clock_.now();
  inflight_.close(seen, qp_.inflight());
  uint32_t finished = 0;
  uint32_t got = qp_.reap(n, [&](const nvme::Cqe& e) { finished += complete(e, seen); });
  ctx_cqes_ += got;
  if (got) completion_wait_.completed(finished);
  return got;
}

bool HwQueueEnv::complete(const nvme::Cqe& e, Time seen) {
  std::optional<OutstandingCommand> r = submitter_.finish(e.cid);
  if (!r) {
    recorder_.stray_cqe();
    return false;
  }
  ++counters_.completions;
  if (setup_.drive_completions) setup_.drive_completions->fetch_add(1, std::memory_order_relaxed);
  if (setup_.watch_latency) latencies_.add(r->submit, seen);
  recorder_.completion(e.cid, *r, nvme::status_field(e.status) & 0x7ff, seen, irq_at_, ctx_,
                       submitter_.commands());
  return true;
}

// disable_irq_nosync for MSI-X is lazy: nothing reaches the hardware now. If an
// interrupt arrives while disabled, hold_interrupt masks it for real and remembers it.
void HwQueueEnv::mask_vector() {
  masked_ = true;
  ++counters_.masks;
}

// enable_irq: unmask in hardware if the lazy path masked it, and replay a held one.
void HwQueueEnv::unmask_vector() {
  masked_ = false;
  ++counters_.unmasks;
  if (!irqs_ || !setup_.has_vector) return;
  if (hw_masked_) {
    irqs_->set_delivery(setup_.vector, true);
    hw_masked_ = false;
  }
  if (held_) {
    held_ = false;
    irqs_->replay(setup_.vector);
  }
}

void HwQueueEnv::hold_interrupt(Time at) {
  held_ = true;
  if (setup_.hw_mask && !hw_masked_ && irqs_) {
    irqs_->set_delivery(setup_.vector, false);
    hw_masked_ = true;
  }
  recorder_.held_interrupt(at);
}

void HwQueueEnv::wake_thread() {
  ++counters_.thread_wakeups;
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(wake_fd_.get(), &one, sizeof one);
}

void HwQueueEnv::arm_timer(Duration d) {
  itimerspec its{};
  int64_t ns = std::max<int64_t>(d.count_ns(), 1);  // zero would disarm
  its.it_value.tv_sec = ns / 1000000000;
  its.it_value.tv_nsec = ns % 1000000000;
  timerfd_settime(timer_fd_.get(), 0, &its, nullptr);
}

void HwQueueEnv::cancel_timer() {
  itimerspec its{};
  timerfd_settime(timer_fd_.get(), 0, &its, nullptr);
}

void HwQueueEnv::mode_change(std::string_view from, std::string_view to, std::string reason) {
  ++counters_.mode_changes;
  recorder_.mode_change(clock_.now(), from, to, std::move(reason));
}

}  // namespace nvmesim::hw
