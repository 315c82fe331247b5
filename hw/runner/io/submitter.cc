#include "hw/runner/io/submitter.h"

namespace nvmesim::hw {

Submitter::Submitter(nvme::QueuePair& qp, IoBuffers& buffers, const Clock& clock,
                     InflightIntegral& inflight, uint32_t nsid)
    : qp_(qp),
      buffers_(buffers),
      clock_(clock),
      inflight_(inflight),
      nsid_(nsid),
      commands_(qp.depth() - 1) {}  // an SQ of depth D holds D - 1 commands

uint16_t Submitter::submit(trace::Op op, uint64_t lba, uint32_t blocks) {
  uint16_t cid = commands_.acquire();
  OutstandingCommand& r = commands_.at(cid);
  r.op = op;
  r.lba = lba;
  r.blocks = blocks;
  nvme::Sqe s = op == trace::Op::flush
                    ? nvme::flush(nsid_)
                    : nvme::rw(op == trace::Op::read ? nvme::io::kRead : nvme::io::kWrite, nsid_,
                               lba, blocks);
  s.cid = cid;
  if (op != trace::Op::flush) buffers_.fill_prps(s, cid);
  r.submit = clock_.now();
  r.doorbell = Time::never();  // not rung yet (the slot may hold an earlier command's)
  qp_.submit(s);
  not_rung_.push_back(cid);
  return cid;
}

void Submitter::ring_doorbell() {
  if (!qp_.sq().doorbell_needed()) return;
  Time t = clock_.now();
  inflight_.close(t, qp_.inflight());
  qp_.ring_sq_doorbell();
  for (uint16_t cid : not_rung_) commands_.at(cid).doorbell = t;
  not_rung_.clear();
}

std::optional<OutstandingCommand> Submitter::finish(uint16_t cid) {
  if (cid >= commands_.capacity() || !commands_.at(cid).busy) return std::nullopt;
  OutstandingCommand r = commands_.at(cid);
  commands_.release(cid);
  return r;
}

}  // namespace nvmesim::hw
