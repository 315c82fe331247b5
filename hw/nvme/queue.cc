#include "hw/nvme/queue.h"

#include "hw/nvme/regs.h"

namespace nvmesim::hw::nvme {

QueuePair::QueuePair(Mmio& mmio, DmaAllocator& dma, uint16_t qid, uint32_t depth, uint32_t dstrd)
    : mmio_(mmio),
      qid_(qid),
      sq_mem_(dma, size_t(depth) * sizeof(Sqe)),
      cq_mem_(dma, size_t(depth) * sizeof(Cqe)),
      sq_db_(sq_doorbell(qid, dstrd)),
      cq_db_(cq_doorbell(qid, dstrd)) {
  sq_.depth = depth;
  cq_.depth = depth;
}

}  // namespace nvmesim::hw::nvme
