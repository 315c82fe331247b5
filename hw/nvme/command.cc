#include "hw/nvme/command.h"

#include <cstdio>
#include <stdexcept>

namespace nvmesim::hw::nvme {

std::string describe_status(uint16_t sf) {
  const char* name = "";
  switch (sf & 0x7ff) {
    case status::kSuccess: name = "Successful Completion"; break;
    case status::kInvalidOpcode: name = "Invalid Command Opcode"; break;
    case status::kInvalidField: name = "Invalid Field in Command"; break;
    case status::kAbortedSqDeletion: name = "Command Aborted due to SQ Deletion"; break;
    case status::kFeatureNotChangeable: name = "Feature Not Changeable"; break;
    default: name = "see the NVMe specification"; break;
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, "SCT %xh SC %02xh%s (%s)", status_type(sf), status_code(sf),
                (sf >> 14) & 1 ? " DNR" : "", name);
  return buf;
}

void set_prps(Sqe& s, uint64_t iova, uint32_t bytes, uint64_t* prp_list, uint64_t prp_list_iova) {
  constexpr uint32_t kPage = 4096;
  uint32_t pages = (bytes + kPage - 1) / kPage;
  if (pages == 0 || pages > 513) throw std::invalid_argument("transfer size out of PRP range");
  s.prp1 = iova;
  if (pages == 1) {
    s.prp2 = 0;
  } else if (pages == 2) {
    s.prp2 = iova + kPage;
  } else {
    for (uint32_t i = 1; i < pages; ++i) prp_list[i - 1] = iova + uint64_t(i) * kPage;
    s.prp2 = prp_list_iova;
  }
}

}  // namespace nvmesim::hw::nvme
