// One pending event as the event queue stores it: 24 bytes, ordered by (time, seq).
#pragma once

#include <cstdint>

namespace nvmesim::sim {

using Handler = void (*)(void* ctx, uint64_t arg);

struct Event {
  uint64_t time;     // ns, never negative
  uint64_t seq_hid;  // seq << kHandlerBits | handler id: seq is unique, so it alone orders equal times
  uint64_t arg;
};

// (time, seq) order: the order events run in.
constexpr bool runs_before(const Event& a, const Event& b) {
  return a.time < b.time || (a.time == b.time && a.seq_hid < b.seq_hid);
}

}  // namespace nvmesim::sim
