#include "hw/nvme/identify.h"

#include <cstring>

namespace nvmesim::hw::nvme {

namespace {

template <class T>
T le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);  // x86 and the spec are both little-endian
  return v;
}

// Identify strings are ASCII padded with spaces.
std::string ascii(const uint8_t* p, size_t n) {
  std::string s(reinterpret_cast<const char*>(p), n);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

}  // namespace

uint32_t ControllerInfo::max_transfer_bytes() const {
  constexpr uint32_t kCap = 2u << 20;
  if (mdts == 0 || mdts >= 10) return kCap;
  uint32_t v = 4096u << mdts;
  return v < kCap ? v : kCap;
}

ControllerInfo parse_identify_controller(const uint8_t* d) {
  ControllerInfo c;
  c.vid = le<uint16_t>(d + 0);
  c.serial = ascii(d + 4, 20);
  c.model = ascii(d + 24, 40);
  c.firmware = ascii(d + 64, 8);
  c.mdts = d[77];
  c.cntlid = le<uint16_t>(d + 78);
  c.version = le<uint32_t>(d + 80);
  c.sqes_min = d[512] & 0xf;
  c.cqes_min = d[513] & 0xf;
  c.nn = le<uint32_t>(d + 516);
  c.oncs = le<uint16_t>(d + 520);
  c.volatile_write_cache = d[525] & 1;
  return c;
}

NamespaceInfo parse_identify_namespace(uint32_t nsid, const uint8_t* d) {
  NamespaceInfo n;
  n.nsid = nsid;
  n.size_blocks = le<uint64_t>(d + 0);
  n.capacity_blocks = le<uint64_t>(d + 8);
  uint8_t flbas = d[26];
  uint32_t fmt = flbas & 0xf;  // low bits of the format index (up to 16 formats)
  uint32_t lbaf = le<uint32_t>(d + 128 + 4 * fmt);
  n.metadata_bytes = uint16_t(lbaf & 0xffff);
  n.block_bytes = 1u << ((lbaf >> 16) & 0xff);
  return n;
}

}  // namespace nvmesim::hw::nvme
