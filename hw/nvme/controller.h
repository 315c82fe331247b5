// One NVMe controller driven from user space: bring-up and shutdown through CC/CSTS,
// the admin queue (polled, every command under a timeout), Identify, queue creation
// and features. CSTS.CFS is checked while waiting on anything and stops the driver
// with ControllerFatal.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "hw/base/clock.h"
#include "hw/hal/dma.h"
#include "hw/hal/mmio.h"
#include "hw/nvme/command.h"
#include "hw/nvme/error.h"
#include "hw/nvme/identify.h"
#include "hw/nvme/queue.h"
#include "hw/nvme/regs.h"
#include "vocab/time.h"

namespace nvmesim::hw::nvme {

struct ControllerConfig {
  uint32_t admin_depth = 32;
  Duration admin_timeout = Duration::s(5);
  Duration shutdown_timeout = Duration::s(5);  // nvme-pci's shutdown_timeout default
  Duration poll_sleep = Duration::us(20);      // between looks at the admin CQ
};

// Result of a command whose failure the caller may tolerate (features).
struct AdminResult {
  uint16_t status = 0;  // status field, 0 = success
  uint32_t dw0 = 0;
  bool ok() const { return status == status::kSuccess; }
};

class Controller {
 public:
  Controller(Mmio& mmio, DmaAllocator& dma, Clock& clock, ControllerConfig config = {});
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  Cap cap() const { return cap_; }
  uint32_t version() const { return version_; }
  Duration ready_timeout() const;  // from CAP.TO

  // Resets the controller (CC.EN = 0), programs the admin queue and enables it.
  void enable();
  // CC.EN = 0 and wait for CSTS.RDY = 0: aborts every outstanding command. Safe to call
  // on a failed controller; returns false if RDY did not clear in time.
  bool disable();
  // Normal shutdown (CC.SHN = 01), wait for CSTS.SHST = complete, then disable.
  // Returns false if the controller did not report completion in time.
  bool shutdown();

  // Throws ControllerFatal if CSTS.CFS is set or the device reads as gone.
  void check_fatal();
  uint32_t csts() { return mmio_.read32(reg::kCsts); }

  // Runs one admin command to completion. Throws CommandTimeout, ControllerFatal, and
  // CommandFailed for an error status unless `tolerate_error`.
  AdminResult admin(Sqe cmd, const char* what, bool tolerate_error = false);

  ControllerInfo identify_controller();
  NamespaceInfo identify_namespace(uint32_t nsid);
  // Set Features Number of Queues; returns I/O queue pairs granted (min of SQs, CQs).
  uint32_t set_queue_count(uint32_t wanted);
  // Creates CQ then SQ with id `qid`. irq_enabled: IEN with MSI-X `vector`.
  std::unique_ptr<QueuePair> create_io_queue(uint16_t qid, uint32_t depth, bool irq_enabled,
                                             uint16_t vector);
  // Deletes SQ then CQ; errors are tolerated (the controller is going away anyway).
  void delete_io_queue(QueuePair& q);

  AdminResult get_feature(uint8_t fid, uint32_t cdw11 = 0);
  AdminResult set_feature(uint8_t fid, uint32_t cdw11);

  uint64_t admin_commands() const { return admin_commands_; }

 private:
  // Polls CSTS until (csts & mask) == want or `timeout`; checks CFS unless `ignore_fatal`.
  bool wait_csts(uint32_t mask, uint32_t want, Duration timeout, bool ignore_fatal);

  Mmio& mmio_;
  DmaAllocator& dma_;
  Clock& clock_;
  ControllerConfig config_;
  Cap cap_;
  uint32_t version_ = 0;
  std::unique_ptr<QueuePair> admin_;
  DmaBuffer scratch_;  // 4 KiB for Identify data
  uint16_t next_cid_ = 0;
  bool admin_broken_ = false;  // a command timed out: the admin queue state is unknown
  uint64_t admin_commands_ = 0;
};

}  // namespace nvmesim::hw::nvme
