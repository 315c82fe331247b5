// NVMe controller registers (NVMe Base Specification, "Controller Registers") and the
// fields the driver uses. Offsets into BAR0.
#pragma once

#include <cstdint>

namespace nvmesim::hw::nvme {

namespace reg {
constexpr uint32_t kCap = 0x00;    // 64-bit: capabilities
constexpr uint32_t kVs = 0x08;     // version
constexpr uint32_t kIntms = 0x0c;  // interrupt mask set (pin/MSI only, not MSI-X)
constexpr uint32_t kIntmc = 0x10;  // interrupt mask clear
constexpr uint32_t kCc = 0x14;     // controller configuration
constexpr uint32_t kCsts = 0x1c;   // controller status
constexpr uint32_t kAqa = 0x24;    // admin queue attributes
constexpr uint32_t kAsq = 0x28;    // 64-bit: admin SQ base
constexpr uint32_t kAcq = 0x30;    // 64-bit: admin CQ base
constexpr uint32_t kDoorbells = 0x1000;
}  // namespace reg

struct Cap {
  uint64_t raw = 0;
  uint32_t mqes() const { return uint32_t(raw & 0xffff) + 1; }  // max entries per queue
  bool cqr() const { return (raw >> 16) & 1; }                   // contiguous queues required
  // CAP.TO: worst-case time for CSTS.RDY to follow CC.EN, in 500 ms units.
  uint32_t timeout_ms() const { return uint32_t((raw >> 24) & 0xff) * 500; }
  uint32_t dstrd() const { return uint32_t((raw >> 32) & 0xf); }  // doorbell stride 2^(2+n)
  bool css_nvm() const { return (raw >> 37) & 1; }
  uint32_t mpsmin() const { return uint32_t((raw >> 48) & 0xf); }  // 2^(12+n) bytes
  uint32_t mpsmax() const { return uint32_t((raw >> 52) & 0xf); }
};

namespace cc {
constexpr uint32_t kEnable = 1u << 0;
constexpr uint32_t kCssNvm = 0u << 4;
constexpr uint32_t kMps4k = 0u << 7;
constexpr uint32_t kAmsRr = 0u << 11;
constexpr uint32_t kShnMask = 3u << 14;
constexpr uint32_t kShnNormal = 1u << 14;
constexpr uint32_t kIosqes64 = 6u << 16;  // 2^6 = 64-byte SQEs
constexpr uint32_t kIocqes16 = 4u << 20;  // 2^4 = 16-byte CQEs
}  // namespace cc

namespace csts {
constexpr uint32_t kReady = 1u << 0;
constexpr uint32_t kFatal = 1u << 1;  // CFS
constexpr uint32_t kShstMask = 3u << 2;
constexpr uint32_t kShstComplete = 2u << 2;
// All ones: the device is gone from the bus (surprise removal, dead link).
constexpr uint32_t kGone = 0xffffffffu;
}  // namespace csts

// Doorbell offsets: SQ y tail at 0x1000 + (2y) * stride, CQ y head at (2y + 1) * stride.
constexpr uint32_t sq_doorbell(uint16_t qid, uint32_t dstrd) {
  return reg::kDoorbells + (2u * qid) * (4u << dstrd);
}
constexpr uint32_t cq_doorbell(uint16_t qid, uint32_t dstrd) {
  return reg::kDoorbells + (2u * qid + 1) * (4u << dstrd);
}

}  // namespace nvmesim::hw::nvme
