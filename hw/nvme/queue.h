// One NVMe queue pair in DMA memory: the SQ and CQ rings, their doorbells, and the one
// CQ reaper that every completion context (hard IRQ, IRQ thread, timer, polling task)
// calls. Index and phase arithmetic is nvmesim::nvme's, shared with the simulator.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>

#include "hw/hal/dma.h"
#include "hw/hal/mmio.h"
#include "hw/nvme/command.h"
#include "vocab/nvme_ring.h"

namespace nvmesim::hw::nvme {

class QueuePair {
 public:
  // qid 0 is the admin queue. Rings are allocated zeroed (phase 0 everywhere).
  QueuePair(Mmio& mmio, DmaAllocator& dma, uint16_t qid, uint32_t depth, uint32_t dstrd);

  uint16_t qid() const { return qid_; }
  uint32_t depth() const { return sq_.depth; }
  uint64_t sq_iova() const { return sq_mem_.iova(); }
  uint64_t cq_iova() const { return cq_mem_.iova(); }
  const nvmesim::nvme::SqCursor& sq() const { return sq_; }
  const nvmesim::nvme::CqCursor& cq() const { return cq_; }

  bool sq_full() const { return sq_.full(); }
  // Copies the command into the slot at the SQ tail; returns the slot. No doorbell.
  uint32_t submit(const Sqe& cmd) {
    uint32_t slot = sq_.push();
    std::memcpy(sq_mem_.host<Sqe>() + slot, &cmd, sizeof cmd);
    return slot;
  }
  // Writes the SQ tail doorbell unless the tail has not moved; true if written.
  bool ring_sq_doorbell() {
    if (!sq_.doorbell_needed()) return false;
    std::atomic_thread_fence(std::memory_order_release);  // SQEs visible before the doorbell
    mmio_.write32(sq_db_, sq_.ring_doorbell());
    ++sq_doorbell_writes;
    return true;
  }

  // The CQE at the head carries the current phase: the controller has posted it.
  bool cqe_pending() const { return cq_.is_new(head_phase()); }

  // Consumes up to `budget` visible CQEs, calling on_cqe(const Cqe&) for each, then
  // writes the CQ head doorbell once if anything was consumed. Returns the count.
  template <class F>
  uint32_t reap(uint32_t budget, F&& on_cqe) {
    uint32_t n = 0;
    while (n < budget && cqe_pending()) {
      std::atomic_thread_fence(std::memory_order_acquire);  // rest of the CQE after its phase
      Cqe e;
      std::memcpy(&e, cq_mem_.host<Cqe>() + cq_.head, sizeof e);
      sq_.head = e.sqhd;
      cq_.advance();
      ++n;
      on_cqe(e);
    }
    if (n > 0) {
      mmio_.write32(cq_db_, cq_.head);
      ++cq_doorbell_writes;
    }
    return n;
  }

  // Commands submitted to the controller and not yet consumed, as nvme-pci computes it.
  uint32_t inflight() const { return nvmesim::nvme::driver_inflight(sq_, cq_); }

  uint64_t sq_doorbell_writes = 0;
  uint64_t cq_doorbell_writes = 0;

 private:
  uint8_t head_phase() const {
    const Cqe* e = cq_mem_.host<Cqe>() + cq_.head;
    return uint8_t(__atomic_load_n(&e->status, __ATOMIC_ACQUIRE) & 1);
  }

  Mmio& mmio_;
  uint16_t qid_;
  DmaBuffer sq_mem_;
  DmaBuffer cq_mem_;
  nvmesim::nvme::SqCursor sq_;
  nvmesim::nvme::CqCursor cq_;
  uint32_t sq_db_;
  uint32_t cq_db_;
};

}  // namespace nvmesim::hw::nvme
