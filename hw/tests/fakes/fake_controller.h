// A fake NVMe controller behind the lowest layer (Mmio, DmaAllocator, IrqVectors), for
// unit tests of the driver logic without hardware. It executes commands synchronously
// when their SQ doorbell is written, posts CQEs with phase tags into the host's CQ
// memory and signals the CQ's vector eventfd. Faults are injected by switches.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#include "hw/base/clock.h"
#include "hw/base/unique_fd.h"
#include "hw/hal/dma.h"
#include "hw/hal/irq_vectors.h"
#include "hw/hal/mmio.h"
#include "hw/nvme/command.h"
#include "hw/nvme/regs.h"

namespace nvmesim::hw::testing {

// Time that moves only when someone sleeps.
class FakeClock final : public Clock {
 public:
  Time now() const override { return t_; }
  void sleep(Duration d) override { t_ += d; }
  void advance(Duration d) { t_ += d; }

 private:
  Time t_ = Time::zero();
};

class FakeDma final : public DmaAllocator {
 public:
  ~FakeDma() override {
    for (auto& [iova, span] : live_) std::free(span.host);
  }
  DmaSpan allocate(size_t bytes) override {
    size_t size = (bytes + 4095) / 4096 * 4096;
    void* p = std::aligned_alloc(4096, size);
    std::memset(p, 0, size);
    DmaSpan s{p, next_, size};
    next_ += size + 4096;  // a gap, so an overrun lands nowhere
    live_[s.iova] = s;
    return s;
  }
  void release(const DmaSpan& s) override {
    std::free(s.host);
    live_.erase(s.iova);
  }
  // Host pointer for a device address, or throws (the IOMMU would fault).
  uint8_t* translate(uint64_t iova, size_t len) {
    auto it = live_.upper_bound(iova);
    if (it == live_.begin()) throw std::runtime_error("DMA to unmapped IOVA");
    --it;
    const DmaSpan& s = it->second;
    if (iova + len > s.iova + s.size) throw std::runtime_error("DMA past the end of a mapping");
    return static_cast<uint8_t*>(s.host) + (iova - s.iova);
  }
  size_t live() const { return live_.size(); }

 private:
  uint64_t next_ = 0x10000000;
  std::map<uint64_t, DmaSpan> live_;
};

class FakeVectors final : public IrqVectors {
 public:
  void enable(uint32_t count) override {
    for (uint32_t i = 0; i < count; ++i) fds_.emplace_back(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  }
  void disable() override { fds_.clear(); }
  uint32_t count() const override { return uint32_t(fds_.size()); }
  int fd(uint32_t v) const override { return fds_.at(v).get(); }
  uint64_t wait(uint32_t v, Duration) override {
    uint64_t n = 0;
    return read(fd(v), &n, sizeof n) == sizeof n ? n : 0;
  }
  void set_delivery(uint32_t v, bool on) override {
    delivery_log.push_back({v, on});
    if (on && held_[v]) {  // a message held while masked is sent on unmask
      held_[v] = false;
      signal_now(v);
    }
    masked_[v] = !on;
  }
  void replay(uint32_t v) override {
    ++replays;
    signal_now(v);
  }
  // The controller raises the vector's MSI-X message.
  void raise(uint32_t v) {
    if (v >= fds_.size()) return;
    if (masked_[v]) {
      held_[v] = true;
      return;
    }
    signal_now(v);
  }
  uint64_t pending(uint32_t v) {  // consumes
    uint64_t n = 0;
    return read(fd(v), &n, sizeof n) == sizeof n ? n : 0;
  }

  std::vector<std::pair<uint32_t, bool>> delivery_log;
  int replays = 0;

 private:
  void signal_now(uint32_t v) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(fd(v), &one, sizeof one);
  }
  std::vector<UniqueFd> fds_;
  std::map<uint32_t, bool> masked_, held_;
};

class FakeController final : public Mmio {
 public:
  struct Faults {
    bool never_ready = false;       // CSTS.RDY never follows CC.EN=1
    int drop_opcode = -1;           // admin opcode that never completes
    int fatal_on_opcode = -1;       // admin opcode that sets CSTS.CFS instead of completing
    bool refuse_coalescing = true;  // Set Features 08h -> Feature Not Changeable (QEMU 7.2)
    bool hold_io = false;           // I/O CQEs are held until release_io()
  };

  FakeController(FakeDma& dma, FakeVectors* vectors) : dma_(dma), vectors_(vectors) {
    cap_ = 255ull                // MQES: 256 entries
           | (2ull << 24)        // TO: 1 s
           | (1ull << 37);       // CSS: NVM
  }

  Faults faults;
  std::vector<std::pair<uint32_t, uint64_t>> writes;  // (offset, value) of register writes
  uint32_t ready_after_reads = 2;                      // CSTS reads before RDY shows

  uint32_t read32(uint32_t off) override {
    switch (off) {
      case nvme::reg::kVs: return 0x10400;
      case nvme::reg::kCc: return cc_;
      case nvme::reg::kCsts: return csts_read();
      case nvme::reg::kAqa: return aqa_;
    }
    return 0;
  }
  uint64_t read64(uint32_t off) override {
    if (off == nvme::reg::kCap) return cap_;
    return uint64_t(read32(off)) | (uint64_t(read32(off + 4)) << 32);
  }
  void write64(uint32_t off, uint64_t v) override {
    writes.push_back({off, v});
    if (off == nvme::reg::kAsq) asq_ = v;
    if (off == nvme::reg::kAcq) acq_ = v;
  }
  void write32(uint32_t off, uint32_t v) override {
    writes.push_back({off, v});
    if (off == nvme::reg::kCc) return write_cc(v);
    if (off == nvme::reg::kAqa) aqa_ = v;
    if (off >= nvme::reg::kDoorbells) doorbell(off, v);
  }

  void set_fatal() { fatal_ = true; }
  // Posts every held I/O completion.
  void release_io() {
    auto held = std::move(held_io_);
    held_io_.clear();
    for (auto& h : held) post(h.cqid, h.cqe);
  }
  size_t held_io() const { return held_io_.size(); }
  uint64_t io_commands = 0;
  std::map<uint64_t, std::vector<uint8_t>> blocks;  // LBA -> 512 bytes

 private:
  struct Sq {
    uint64_t base = 0;
    uint32_t size = 0, head = 0, tail = 0;
    uint16_t cqid = 0;
  };
  struct Cq {
    uint64_t base = 0;
    uint32_t size = 0, tail = 0, head = 0;
    uint8_t phase = 1;
    bool ien = false;
    uint16_t vector = 0;
  };
  struct Held {
    uint16_t cqid;
    nvme::Cqe cqe;
  };

  uint32_t csts_read() {
    uint32_t s = 0;
    if ((cc_ & nvme::cc::kEnable) && !faults.never_ready) {
      if (reads_since_enable_ >= ready_after_reads) s |= nvme::csts::kReady;
      ++reads_since_enable_;
    }
    if (fatal_) s |= nvme::csts::kFatal;
    if (shst_complete_) s |= nvme::csts::kShstComplete;
    return s;
  }

  void write_cc(uint32_t v) {
    bool was = cc_ & nvme::cc::kEnable;
    cc_ = v;
    if (!was && (v & nvme::cc::kEnable)) {
      reads_since_enable_ = 0;
      shst_complete_ = false;
      sqs_.clear();
      cqs_.clear();
      sqs_[0] = {asq_, (aqa_ & 0xfff) + 1, 0, 0, 0};
      cqs_[0] = {acq_, ((aqa_ >> 16) & 0xfff) + 1, 0, 0, 1, true, 0};
    }
    if (was && !(v & nvme::cc::kEnable)) {
      sqs_.clear();
      cqs_.clear();
      held_io_.clear();
    }
    if ((v & nvme::cc::kShnMask) == nvme::cc::kShnNormal) shst_complete_ = true;
  }

  void doorbell(uint32_t off, uint32_t v) {
    uint32_t idx = (off - nvme::reg::kDoorbells) / 4;
    uint16_t qid = uint16_t(idx / 2);
    if (idx % 2 == 1) {
      cqs_.at(qid).head = v;
      return;
    }
    Sq& sq = sqs_.at(qid);
    sq.tail = v;
    while (sq.head != sq.tail) {
      nvme::Sqe cmd;
      std::memcpy(&cmd, dma_.translate(sq.base + uint64_t(sq.head) * 64, 64), 64);
      sq.head = (sq.head + 1) % sq.size;
      execute(qid, sq, cmd);
    }
  }

  void execute(uint16_t sqid, Sq& sq, const nvme::Sqe& c) {
    nvme::Cqe e;
    e.cid = c.cid;
    e.sqid = sqid;
    e.sqhd = uint16_t(sq.head);
    uint16_t sf = 0;
    if (sqid == 0) {
      if (c.opc == faults.drop_opcode) return;
      if (c.opc == faults.fatal_on_opcode) {
        fatal_ = true;
        return;
      }
      sf = admin(c, &e.dw0);
    } else {
      ++io_commands;
      sf = io(c);
      if (faults.hold_io) {
        e.status = uint16_t(sf << 1);
        held_io_.push_back({sq.cqid, e});
        return;
      }
    }
    e.status = uint16_t(sf << 1);
    post(sq.cqid, e);
  }

  void post(uint16_t cqid, nvme::Cqe e) {
    Cq& cq = cqs_.at(cqid);
    if ((cq.tail + 1) % cq.size == cq.head) throw std::runtime_error("fake: CQ overflow");
    e.status = uint16_t((e.status & ~1u) | cq.phase);
    std::memcpy(dma_.translate(cq.base + uint64_t(cq.tail) * 16, 16), &e, 16);
    if (++cq.tail == cq.size) {
      cq.tail = 0;
      cq.phase ^= 1;
    }
    if (cq.ien && vectors_) vectors_->raise(cq.vector);
  }

  uint16_t admin(const nvme::Sqe& c, uint32_t* dw0) {
    switch (c.opc) {
      case nvme::admin::kIdentify: {
        uint8_t* d = dma_.translate(c.prp1, 4096);
        std::memset(d, 0, 4096);
        if ((c.cdw10 & 0xff) == 1) {
          d[0] = 0x34, d[1] = 0x12;
          std::memcpy(d + 4, "FAKE0001            ", 20);
          std::memcpy(d + 24, "Fake NVMe Controller                    ", 40);
          std::memcpy(d + 64, "1.0     ", 8);
          d[77] = 5;       // MDTS: 128 KiB
          d[516] = 1;      // NN
          d[512] = 0x66;   // SQES
          d[513] = 0x44;   // CQES
        } else {
          uint64_t nsze = 1u << 20;
          std::memcpy(d, &nsze, 8);
          std::memcpy(d + 8, &nsze, 8);
          d[26] = 0;                    // FLBAS: format 0
          uint32_t lbaf0 = 9u << 16;    // 512-byte blocks
          std::memcpy(d + 128, &lbaf0, 4);
        }
        return 0;
      }
      case nvme::admin::kSetFeatures: {
        uint8_t fid = uint8_t(c.cdw10 & 0xff);
        if (fid == nvme::feature::kNumberOfQueues) {
          uint32_t n = std::min<uint32_t>(c.cdw11 & 0xffff, 7);
          *dw0 = (n << 16) | n;
          return 0;
        }
        if (fid == nvme::feature::kInterruptCoalescing && faults.refuse_coalescing)
          return nvme::status::kFeatureNotChangeable;
        return 0;
      }
      case nvme::admin::kGetFeatures: return 0;
      case nvme::admin::kCreateCq: {
        uint16_t qid = uint16_t(c.cdw10 & 0xffff);
        cqs_[qid] = {c.prp1, (c.cdw10 >> 16) + 1, 0, 0, 1, bool(c.cdw11 & 2), uint16_t(c.cdw11 >> 16)};
        return 0;
      }
      case nvme::admin::kCreateSq: {
        uint16_t qid = uint16_t(c.cdw10 & 0xffff);
        uint16_t cqid = uint16_t(c.cdw11 >> 16);
        if (!cqs_.count(cqid)) return 0x100;  // Completion Queue Invalid
        sqs_[qid] = {c.prp1, (c.cdw10 >> 16) + 1, 0, 0, cqid};
        return 0;
      }
      case nvme::admin::kDeleteSq: sqs_.erase(uint16_t(c.cdw10)); return 0;
      case nvme::admin::kDeleteCq: cqs_.erase(uint16_t(c.cdw10)); return 0;
    }
    return nvme::status::kInvalidOpcode;
  }

  uint16_t io(const nvme::Sqe& c) {
    if (c.opc == nvme::io::kFlush) return 0;
    uint64_t slba = c.cdw10 | (uint64_t(c.cdw11) << 32);
    uint32_t nlb = (c.cdw12 & 0xffff) + 1;
    for (uint32_t b = 0; b < nlb; ++b) {
      // PRP1/PRP2 only: the tests keep transfers within two pages.
      uint64_t byte = uint64_t(b) * 512;
      uint64_t addr = byte < 4096 ? c.prp1 + byte : c.prp2 + (byte - 4096);
      uint8_t* p = dma_.translate(addr, 512);
      auto& blk = blocks[slba + b];
      blk.resize(512);
      if (c.opc == nvme::io::kWrite) std::memcpy(blk.data(), p, 512);
      else if (c.opc == nvme::io::kRead) std::memcpy(p, blk.data(), 512);
      else return nvme::status::kInvalidOpcode;
    }
    return 0;
  }

  FakeDma& dma_;
  FakeVectors* vectors_;
  uint64_t cap_;
  uint32_t cc_ = 0, aqa_ = 0;
  uint64_t asq_ = 0, acq_ = 0;
  uint32_t reads_since_enable_ = 0;
  bool fatal_ = false;
  bool shst_complete_ = false;
  std::map<uint16_t, Sq> sqs_;
  std::map<uint16_t, Cq> cqs_;
  std::vector<Held> held_io_;
};

}  // namespace nvmesim::hw::testing
