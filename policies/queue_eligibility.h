// Which policy a queue runs, from the shape of its drive's interrupt vectors: the one rule
// the simulator's topology (models/host/topology.h) and the hw runner both apply, here in
// policies/ because hw may see policies but not models.
#pragma once

#include <cstdint>

#include "policies/registry.h"

namespace nvmesim {

// What decides which queues a policy may run on (policies.md, "Eligibility").
struct VectorShape {
  uint32_t msix_vectors = 1;         // the controller's vectors in use, the admin queue's included
  bool threaded_interrupts = false;  // the host runs queue interrupts in threads
};

// The policy a queue runs: the requested one where it is eligible, else irq (B0).
inline const policy::PolicyInfo& queue_policy(const policy::PolicyInfo& requested, const VectorShape& v) {
  if (requested.eligibility == policy::Eligibility::dedicated_vector &&
      (v.msix_vectors <= 1 || v.threaded_interrupts))
    return *policy::find_policy("irq");
  return requested;
}

}  // namespace nvmesim
