// The parts of Identify Controller (CNS 01h) and Identify Namespace (CNS 00h) the
// driver uses, parsed from the 4 KiB data structures.
#pragma once

#include <cstdint>
#include <string>

namespace nvmesim::hw::nvme {

struct ControllerInfo {
  uint16_t vid = 0;
  std::string serial, model, firmware;
  uint8_t mdts = 0;   // max transfer 2^mdts pages (0: no limit)
  uint16_t cntlid = 0;
  uint32_t version = 0;
  uint8_t sqes_min = 6, cqes_min = 4;
  uint32_t nn = 0;    // namespaces
  uint16_t oncs = 0;
  bool volatile_write_cache = false;
  // Largest transfer in bytes the driver may issue (page size 4 KiB), capped at 2 MiB
  // by the one-page PRP list the runner uses.
  uint32_t max_transfer_bytes() const;
};

struct NamespaceInfo {
  uint32_t nsid = 0;
  uint64_t size_blocks = 0;      // NSZE
  uint64_t capacity_blocks = 0;  // NCAP
  uint32_t block_bytes = 512;    // from the LBA format in use
  uint16_t metadata_bytes = 0;
};

ControllerInfo parse_identify_controller(const uint8_t* data4k);
NamespaceInfo parse_identify_namespace(uint32_t nsid, const uint8_t* data4k);

}  // namespace nvmesim::hw::nvme
