// NVMe submission and completion queue entries, and builders for the commands the
// driver issues. Layouts per the NVMe Base and NVM Command Set specifications.
#pragma once

#include <cstdint>
#include <string>

namespace nvmesim::hw::nvme {

struct Sqe {
  uint8_t opc = 0;
  uint8_t flags = 0;  // FUSE, PSDT (0: PRPs)
  uint16_t cid = 0;
  uint32_t nsid = 0;
  uint64_t rsvd = 0;
  uint64_t mptr = 0;
  uint64_t prp1 = 0;
  uint64_t prp2 = 0;
  uint32_t cdw10 = 0, cdw11 = 0, cdw12 = 0, cdw13 = 0, cdw14 = 0, cdw15 = 0;
};
static_assert(sizeof(Sqe) == 64);

struct Cqe {
  uint32_t dw0 = 0;  // command specific result
  uint32_t dw1 = 0;
  uint16_t sqhd = 0;  // SQ head as the controller saw it
  uint16_t sqid = 0;
  uint16_t cid = 0;
  uint16_t status = 0;  // bit 0: phase tag; 15:1: status field
};
static_assert(sizeof(Cqe) == 16);

// The status field without the phase tag: SC in bits 7:0, SCT in 10:8, DNR in 14.
constexpr uint16_t status_field(uint16_t raw_status) { return raw_status >> 1; }
constexpr uint8_t status_code(uint16_t sf) { return uint8_t(sf & 0xff); }
constexpr uint8_t status_type(uint16_t sf) { return uint8_t((sf >> 8) & 0x7); }

// Status fields (SCT << 8 | SC) the driver tells apart.
namespace status {
constexpr uint16_t kSuccess = 0x000;
constexpr uint16_t kInvalidOpcode = 0x001;
constexpr uint16_t kInvalidField = 0x002;
constexpr uint16_t kAbortedSqDeletion = 0x008;
constexpr uint16_t kFeatureNotChangeable = 0x10e;  // command specific
}  // namespace status

// "SCT 1h SC 0Eh (Feature Not Changeable)" style text for messages.
std::string describe_status(uint16_t sf);

namespace admin {
constexpr uint8_t kDeleteSq = 0x00;
constexpr uint8_t kCreateSq = 0x01;
constexpr uint8_t kDeleteCq = 0x04;
constexpr uint8_t kCreateCq = 0x05;
constexpr uint8_t kIdentify = 0x06;
constexpr uint8_t kSetFeatures = 0x09;
constexpr uint8_t kGetFeatures = 0x0a;
}  // namespace admin

namespace io {
constexpr uint8_t kFlush = 0x00;
constexpr uint8_t kWrite = 0x01;
constexpr uint8_t kRead = 0x02;
}  // namespace io

namespace feature {
constexpr uint8_t kNumberOfQueues = 0x07;
constexpr uint8_t kInterruptCoalescing = 0x08;
constexpr uint8_t kInterruptVectorConfig = 0x09;
}  // namespace feature

inline Sqe identify(uint8_t cns, uint32_t nsid, uint64_t buffer_iova) {
  Sqe s;
  s.opc = admin::kIdentify;
  s.nsid = nsid;
  s.prp1 = buffer_iova;
  s.cdw10 = cns;
  return s;
}

// qsize in entries (written 0's based). PC=1: physically contiguous.
inline Sqe create_cq(uint16_t qid, uint32_t qsize, uint64_t iova, bool irq_enabled, uint16_t vector) {
  Sqe s;
  s.opc = admin::kCreateCq;
  s.prp1 = iova;
  s.cdw10 = (uint32_t(qsize - 1) << 16) | qid;
  s.cdw11 = (uint32_t(vector) << 16) | (irq_enabled ? 2u : 0u) | 1u;
  return s;
}

inline Sqe create_sq(uint16_t qid, uint32_t qsize, uint64_t iova, uint16_t cqid) {
  Sqe s;
  s.opc = admin::kCreateSq;
  s.prp1 = iova;
  s.cdw10 = (uint32_t(qsize - 1) << 16) | qid;
  s.cdw11 = (uint32_t(cqid) << 16) | 1u;  // QPRIO urgent(0) ignored under RR; PC=1
  return s;
}

inline Sqe delete_queue(uint8_t opc, uint16_t qid) {
  Sqe s;
  s.opc = opc;
  s.cdw10 = qid;
  return s;
}

inline Sqe set_features(uint8_t fid, uint32_t cdw11) {
  Sqe s;
  s.opc = admin::kSetFeatures;
  s.cdw10 = fid;
  s.cdw11 = cdw11;
  return s;
}

inline Sqe get_features(uint8_t fid, uint32_t cdw11) {
  Sqe s;
  s.opc = admin::kGetFeatures;
  s.cdw10 = fid;  // SEL 0: current value
  s.cdw11 = cdw11;
  return s;
}

// Read or write of `nlb` logical blocks at `slba`; PRPs filled by the caller.
inline Sqe rw(uint8_t opc, uint32_t nsid, uint64_t slba, uint32_t nlb) {
  Sqe s;
  s.opc = opc;
  s.nsid = nsid;
  s.cdw10 = uint32_t(slba);
  s.cdw11 = uint32_t(slba >> 32);
  s.cdw12 = nlb - 1;  // 0's based
  return s;
}

inline Sqe flush(uint32_t nsid) {
  Sqe s;
  s.opc = io::kFlush;
  s.nsid = nsid;
  return s;
}

// Fills PRP1/PRP2 for an IOVA-contiguous buffer of `bytes` starting page-aligned:
// one page: PRP1; two: PRP2 is the second page; more: PRP2 points at `prp_list`, a
// page the caller owns (host pointer and IOVA), which gets the remaining page
// addresses. At most 512 entries: enough for 2 MiB.
void set_prps(Sqe& s, uint64_t iova, uint32_t bytes, uint64_t* prp_list, uint64_t prp_list_iova);

}  // namespace nvmesim::hw::nvme
