// The commands a queue has outstanding, by command id: what the reaper needs to finish
// one (and trace it), and the oldest submission time for the timeout check.
#pragma once

#include <cstdint>
#include <vector>

#include "vocab/command_trace.h"
#include "vocab/time.h"

namespace nvmesim::hw {

struct OutstandingCommand {
  bool busy = false;
  trace::Op op = trace::Op::read;
  uint64_t lba = 0;
  uint32_t blocks = 0;
  Time submit;
  Time doorbell = Time::never();  // never: submitted, not yet covered by a doorbell
};

class CommandTable {
 public:
  explicit CommandTable(uint32_t slots) : slots_(slots) {
    for (uint32_t i = slots; i-- > 0;) free_.push_back(uint16_t(i));
  }
  uint32_t capacity() const { return uint32_t(slots_.size()); }
  uint32_t busy() const { return capacity() - uint32_t(free_.size()); }
  bool full() const { return free_.empty(); }

  uint16_t acquire() {
    uint16_t cid = free_.back();
    free_.pop_back();
    slots_[cid].busy = true;
    return cid;
  }
  OutstandingCommand& at(uint16_t cid) { return slots_.at(cid); }
  // False if the cid is not outstanding (a controller bug or a stale CQE).
  bool release(uint16_t cid) {
    if (cid >= slots_.size() || !slots_[cid].busy) return false;
    slots_[cid].busy = false;
    free_.push_back(cid);
    return true;
  }
  // f(cid, command) for every outstanding command, by cid.
  template <class F>
  void for_each_outstanding(F&& f) const {
    for (uint32_t cid = 0; cid < slots_.size(); ++cid)
      if (slots_[cid].busy) f(uint16_t(cid), slots_[cid]);
  }
  // Time::never() when nothing is outstanding.
  Time oldest_submit() const {
    Time t = Time::never();
    for (const auto& r : slots_)
      if (r.busy && r.submit < t) t = r.submit;
    return t;
  }

 private:
  std::vector<OutstandingCommand> slots_;
  std::vector<uint16_t> free_;
};

}  // namespace nvmesim::hw
