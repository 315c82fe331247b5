// NVMe submission/completion ring arithmetic: the one implementation that both the
// simulator's queue model and the hw driver use. Pure index and phase-tag logic; the
// entries themselves live elsewhere (simulated arrays or DMA memory).
#pragma once

#include <cassert>
#include <cstdint>

namespace nvmesim::nvme {

// Entries from `from` forward to `to` on a ring of `depth` slots.
constexpr uint32_t ring_distance(uint32_t from, uint32_t to, uint32_t depth) {
  return (to + depth - from) % depth;
}

// Host view of a submission queue. One slot always stays empty (NVMe: full when
// tail + 1 == head), so a ring of depth D holds at most D - 1 commands.
struct SqCursor {
  uint32_t depth = 0;
  uint32_t tail = 0;     // next slot the host writes
  uint32_t db_tail = 0;  // last tail written to the SQ tail doorbell
  uint32_t head = 0;     // controller's head as last reported in a CQE (SQHD)

  uint32_t free_slots() const { return depth - 1 - ring_distance(head, tail, depth); }
  bool full() const { return free_slots() == 0; }
  // Claims the slot at tail and returns its index.
  uint32_t push() {
    assert(!full());
    uint32_t slot = tail;
    tail = tail + 1 == depth ? 0 : tail + 1;
    return slot;
  }
  // Like libvfn: no doorbell write when the tail has not moved since the last one.
  bool doorbell_needed() const { return tail != db_tail; }
  uint32_t ring_doorbell() { db_tail = tail; return db_tail; }
};

// Host view of a completion queue: where to look next and which phase tag marks a
// new entry. The phase flips every time the head wraps.
struct CqCursor {
  uint32_t depth = 0;
  uint32_t head = 0;
  uint8_t phase = 1;  // the controller writes phase 1 on its first pass

  bool is_new(uint8_t entry_phase) const { return entry_phase == phase; }
  void advance() {
    if (++head == depth) {
      head = 0;
      phase ^= 1;
    }
  }
};

// Controller view of a completion queue: where it posts next and with which phase.
struct CqProducer {
  uint32_t depth = 0;
  uint32_t tail = 0;
  uint8_t phase = 1;
  uint32_t host_head = 0;  // last value of the CQ head doorbell

  bool full() const { return ring_distance(host_head, tail, depth) == depth - 1; }
  // Returns the slot to post into and the phase to write there.
  uint32_t post(uint8_t* phase_out) {
    assert(!full());
    uint32_t slot = tail;
    *phase_out = phase;
    if (++tail == depth) {
      tail = 0;
      phase ^= 1;
    }
    return slot;
  }
};

// Commands submitted to the controller and not yet consumed by the host, computed as
// nvme-pci does: distance from the CQ head to the last SQ tail written to the doorbell.
// Valid because SQ and CQ share one depth and every command yields one CQE.
constexpr uint32_t driver_inflight(const SqCursor& sq, const CqCursor& cq) {
  return ring_distance(cq.head, sq.db_tail, sq.depth);
}

}  // namespace nvmesim::nvme
