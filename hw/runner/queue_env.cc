#include "hw/runner/queue_env.h"

#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

namespace nvmesim::hw {

HwQueueEnv::HwQueueEnv(nvme::QueuePair& qp, IoBuffers& buffers, IrqVectors* irqs,
                       const Clock& clock, QueueSetup setup)
    : qp_(qp),
      buffers_(buffers),
      irqs_(irqs),
      clock_(clock),
      setup_(setup),
      requests_(qp.depth() - 1),  // an SQ of depth D holds D - 1 commands
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      timer_fd_(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) {
  if (!wake_fd_ || !timer_fd_) throw std::runtime_error("eventfd/timerfd creation failed");
  commands_.reserve(std::min<size_t>(setup_.trace_limit, 1u << 16));
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
  account_inflight(seen);
  uint32_t got = qp_.reap(n, [&](const nvme::Cqe& e) { complete(e, seen); });
  ctx_cqes_ += got;
  if (got) done_cv_.notify_all();
  return got;
}

void HwQueueEnv::complete(const nvme::Cqe& e, Time seen) {
  if (e.cid >= requests_.capacity() || !requests_.at(e.cid).busy) {
    ++stray_;  // not outstanding: count it rather than corrupt the table
    return;
  }
  const Request r = requests_.at(e.cid);
  requests_.release(e.cid);
  uint16_t sf = nvme::status_field(e.status) & 0x7ff;
  ++counters_.completions;
  ++completed_;
  ++unseen_;
  if (sf) ++errors_;
  if (r.submit >= setup_.measure_from && seen < setup_.measure_to) {
    ++measured_;
    latency_.record((seen - r.submit).count_ns());
  }
  if (commands_.size() < setup_.trace_limit) {
    trace::CommandRecord c;
    c.queue = qp_.qid();
    c.cid = e.cid;
    c.op = r.op;
    c.lba = r.lba;
    c.blocks = r.blocks;
    c.submit = r.submit;
    c.doorbell = r.doorbell;
    c.cqe_seen = seen;
    if (irq_at_ != Time::never()) c.irq = irq_at_;
    c.completed_by = ctx_;
    c.status = sf;
    commands_.push_back(c);
  } else {
    ++trace_dropped_;
  }
}

uint16_t HwQueueEnv::submit(trace::Op op, uint64_t lba, uint32_t blocks) {
  uint16_t cid = requests_.acquire();
  Request& r = requests_.at(cid);
  r.op = op;
  r.lba = lba;
  r.blocks = blocks;
  nvme::Sqe s = op == trace::Op::flush
                    ? nvme::flush(setup_.nsid)
                    : nvme::rw(op == trace::Op::read ? nvme::io::kRead : nvme::io::kWrite,
                               setup_.nsid, lba, blocks);
  s.cid = cid;
  if (op != trace::Op::flush) buffers_.fill_prps(s, cid);
  r.submit = clock_.now();
  qp_.submit(s);
  not_rung_.push_back(cid);
  return cid;
}

void HwQueueEnv::ring_doorbell() {
  if (!qp_.sq().doorbell_needed()) return;
  Time t = clock_.now();
  account_inflight(t);
  qp_.ring_sq_doorbell();
  for (uint16_t cid : not_rung_) requests_.at(cid).doorbell = t;
  not_rung_.clear();
}

void HwQueueEnv::wait_completion(std::unique_lock<std::mutex>& lock, Duration timeout, uint32_t min_nr) {
  // No more than can still arrive (unseen + outstanding stays constant meanwhile).
  uint64_t want = std::max<uint64_t>(1, std::min<uint64_t>(min_nr, unseen_ + requests_.busy()));
  if (unseen_ < want)
    done_cv_.wait_for(lock, std::chrono::nanoseconds(timeout.count_ns()), [&] { return unseen_ >= want; });
  unseen_ = 0;  // the task has seen them (io_getevents returned)
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
  ++held_count_;
  if (setup_.hw_mask && !hw_masked_ && irqs_) {
    irqs_->set_delivery(setup_.vector, false);
    hw_masked_ = true;
  }
  if (irq_records_.size() < setup_.trace_limit) irq_records_.push_back({qp_.qid(), at, 0, true});
}

void HwQueueEnv::record_irq(Time at, uint32_t cqes) {
  if (irq_records_.size() < setup_.trace_limit) irq_records_.push_back({qp_.qid(), at, cqes, false});
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
  if (modes_.size() < setup_.trace_limit)
    modes_.push_back({qp_.qid(), clock_.now(), std::string(from), std::string(to), std::move(reason)});
}

}  // namespace nvmesim::hw
