#include "hw/nvme/controller.h"

#include <algorithm>
#include <cstdio>

namespace nvmesim::hw::nvme {

namespace {

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

}  // namespace

Controller::Controller(Mmio& mmio, DmaAllocator& dma, Clock& clock, ControllerConfig config)
    : mmio_(mmio), dma_(dma), clock_(clock), config_(config) {
  cap_.raw = mmio_.read64(reg::kCap);
  version_ = mmio_.read32(reg::kVs);
  if (uint32_t(cap_.raw) == 0xffffffffu)
    throw ControllerFatal("the device reads as all ones: it is not responding (gone from the bus?)");
  if (!cap_.css_nvm()) throw NvmeError("controller does not support the NVM command set (CAP.CSS)");
  if (cap_.mpsmin() > 0) throw NvmeError("controller does not support 4 KiB memory pages (CAP.MPSMIN)");
}

Duration Controller::ready_timeout() const {
  // CAP.TO of 0 would mean "no time at all"; give a slow controller 500 ms anyway.
  return Duration::ms(std::max<uint32_t>(cap_.timeout_ms(), 500));
}

void Controller::check_fatal() {
  uint32_t s = mmio_.read32(reg::kCsts);
  if (s == csts::kGone)
    throw ControllerFatal("controller status reads all ones: the device stopped responding");
  if (s & csts::kFatal)
    throw ControllerFatal("controller fatal status (CSTS.CFS) set, CSTS=" + hex(s) +
                          ": the controller needs a reset; stopping");
}

bool Controller::wait_csts(uint32_t mask, uint32_t want, Duration timeout, bool ignore_fatal) {
  Time deadline = clock_.now() + timeout;
  for (;;) {
    uint32_t s = mmio_.read32(reg::kCsts);
    if (!ignore_fatal && (s == csts::kGone || (s & csts::kFatal))) check_fatal();
    if ((s & mask) == want) return true;
    if (clock_.now() >= deadline) return false;
    clock_.sleep(Duration::ms(1));
  }
}

bool Controller::disable() {
  uint32_t c = mmio_.read32(reg::kCc);
  if (c & cc::kEnable) mmio_.write32(reg::kCc, c & ~cc::kEnable);
  admin_.reset();
  return wait_csts(csts::kReady, 0, ready_timeout(), /*ignore_fatal=*/true);
}

void Controller::enable() {
  if (!disable())
    throw CommandTimeout("controller did not clear CSTS.RDY within CAP.TO (" +
                         std::to_string(ready_timeout().count_ns() / 1000000) + " ms) after CC.EN=0");
  check_fatal();  // CFS may persist through a disable; then there is nothing to do

  uint32_t depth = std::min(config_.admin_depth, cap_.mqes());
  admin_ = std::make_unique<QueuePair>(mmio_, dma_, 0, depth, cap_.dstrd());
  if (!scratch_.size()) scratch_ = DmaBuffer(dma_, 4096);
  next_cid_ = 0;
  admin_broken_ = false;

  mmio_.write32(reg::kAqa, ((depth - 1) << 16) | (depth - 1));
  mmio_.write64(reg::kAsq, admin_->sq_iova());
  mmio_.write64(reg::kAcq, admin_->cq_iova());
  mmio_.write32(reg::kCc, cc::kCssNvm | cc::kMps4k | cc::kAmsRr | cc::kIosqes64 | cc::kIocqes16 |
                              cc::kEnable);
  if (!wait_csts(csts::kReady, csts::kReady, ready_timeout(), false))
    throw CommandTimeout("controller did not set CSTS.RDY within CAP.TO (" +
                         std::to_string(ready_timeout().count_ns() / 1000000) + " ms) after CC.EN=1");
}

bool Controller::shutdown() {
  uint32_t c = mmio_.read32(reg::kCc);
  if (!(c & cc::kEnable)) return true;
  mmio_.write32(reg::kCc, (c & ~cc::kShnMask) | cc::kShnNormal);
  bool done = wait_csts(csts::kShstMask, csts::kShstComplete, config_.shutdown_timeout, true);
  disable();
  return done;
}

AdminResult Controller::admin(Sqe cmd, const char* what, bool tolerate_error) {
  if (!admin_) throw NvmeError(std::string(what) + ": controller is not enabled");
  if (admin_broken_)
    throw NvmeError(std::string(what) + ": admin queue unusable after an earlier timeout");
  check_fatal();
  cmd.cid = next_cid_++;
  admin_->submit(cmd);
  admin_->ring_sq_doorbell();
  ++admin_commands_;

  Time deadline = clock_.now() + config_.admin_timeout;
  AdminResult r;
  bool done = false;
  for (uint32_t spins = 0;; ++spins) {
    admin_->reap(UINT32_MAX, [&](const Cqe& e) {
      // A stale CQE of an earlier command cannot be here: every admin command is waited
      // for; the check guards against a controller that posts garbage.
      if (e.cid == cmd.cid) {
        done = true;
        r.status = status_field(e.status) & 0x7ff;
        r.dw0 = e.dw0;
      }
    });
    if (done) break;
    if (spins % 64 == 63) check_fatal();
    if (clock_.now() >= deadline) {
      check_fatal();  // a dead controller explains the timeout better
      admin_broken_ = true;
      throw CommandTimeout(std::string(what) + ": no completion within " +
                           std::to_string(config_.admin_timeout.count_ns() / 1000000) + " ms");
    }
    if (spins > 16) clock_.sleep(config_.poll_sleep);
  }
  if (!r.ok() && !tolerate_error)
    throw CommandFailed(std::string(what) + " failed: " + describe_status(r.status), r.status);
  return r;
}

ControllerInfo Controller::identify_controller() {
  std::fill_n(scratch_.host(), 4096, 0);
  admin(identify(0x01, 0, scratch_.iova()), "Identify Controller");
  return parse_identify_controller(scratch_.host());
}

NamespaceInfo Controller::identify_namespace(uint32_t nsid) {
  std::fill_n(scratch_.host(), 4096, 0);
  admin(identify(0x00, nsid, scratch_.iova()), "Identify Namespace");
  return parse_identify_namespace(nsid, scratch_.host());
}

uint32_t Controller::set_queue_count(uint32_t wanted) {
  uint32_t n = wanted - 1;  // 0's based
  AdminResult r = admin(set_features(feature::kNumberOfQueues, (n << 16) | n),
                        "Set Features (Number of Queues)");
  uint32_t nsq = (r.dw0 & 0xffff) + 1;
  uint32_t ncq = (r.dw0 >> 16) + 1;
  return std::min({nsq, ncq, wanted});
}

std::unique_ptr<QueuePair> Controller::create_io_queue(uint16_t qid, uint32_t depth,
                                                       bool irq_enabled, uint16_t vector) {
  depth = std::min(depth, cap_.mqes());
  auto q = std::make_unique<QueuePair>(mmio_, dma_, qid, depth, cap_.dstrd());
  admin(create_cq(qid, depth, q->cq_iova(), irq_enabled, vector), "Create I/O Completion Queue");
  admin(create_sq(qid, depth, q->sq_iova(), qid), "Create I/O Submission Queue");
  return q;
}

void Controller::delete_io_queue(QueuePair& q) {
  admin(delete_queue(admin::kDeleteSq, q.qid()), "Delete I/O Submission Queue", true);
  admin(delete_queue(admin::kDeleteCq, q.qid()), "Delete I/O Completion Queue", true);
}

AdminResult Controller::get_feature(uint8_t fid, uint32_t cdw11) {
  return admin(get_features(fid, cdw11), "Get Features", true);
}

AdminResult Controller::set_feature(uint8_t fid, uint32_t cdw11) {
  return admin(set_features(fid, cdw11), "Set Features", true);
}

}  // namespace nvmesim::hw::nvme
