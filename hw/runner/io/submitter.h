// Submission to one I/O queue pair: a command id from the request table, the SQE built
// and copied into the SQ, and one SQ tail doorbell for everything submitted since the
// last (iodepth_batch_submit). The reaper hands each CQE's id back through finish().
// Every call with the queue mutex held.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hw/base/clock.h"
#include "hw/nvme/queue.h"
#include "hw/runner/io/command_table.h"
#include "hw/runner/io/inflight_integral.h"
#include "hw/runner/io/io_buffers.h"
#include "vocab/command_trace.h"

namespace nvmesim::hw {

class Submitter {
 public:
  Submitter(nvme::QueuePair& qp, IoBuffers& buffers, const Clock& clock, InflightIntegral& inflight,
            uint32_t nsid);

  // False when no command id or SQ slot is free.
  bool can_submit() const { return !commands_.full() && !qp_.sq_full(); }
  uint16_t submit(trace::Op op, uint64_t lba, uint32_t blocks);
  void ring_doorbell();  // no doorbell write when the tail has not moved
  uint32_t outstanding() const { return commands_.busy(); }
  Time oldest_submit() const { return commands_.oldest_submit(); }  // for the timeout check
  const CommandTable& commands() const { return commands_; }  // what is outstanding

  // The command a CQE names, now released; nullopt when that id is not outstanding (a
  // stray CQE: counted by the caller rather than corrupting the table).
  std::optional<OutstandingCommand> finish(uint16_t cid);

 private:
  nvme::QueuePair& qp_;
  IoBuffers& buffers_;
  const Clock& clock_;
  InflightIntegral& inflight_;
  uint32_t nsid_;
  CommandTable commands_;
  std::vector<uint16_t> not_rung_;  // cids submitted since the last doorbell
};

}  // namespace nvmesim::hw
