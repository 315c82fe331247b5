// One I/O request from submission by the application to its reaping. The command id in
// the SQE/CQE is the request's index in the simulation's request pool.
#pragma once

#include <cstdint>

#include "vocab/time.h"

namespace nvmesim {

struct Request {
  Time submitted;        // the application issued it (start of its submit call)
  Time doorbell;         // the SQ tail doorbell covering it was written
  Time posted;           // the device posts (or posted) its CQE
  Time unit_done;        // the device's unit finished: the posting is known from then on
  uint32_t command = 0;  // replay: the trace command it carries (index into ReplayTrace::commands)
  uint32_t job = 0;      // job clone index
  uint32_t queue = 0;    // global queue index
  uint32_t qid = 0;      // I/O queue index within its drive
  uint32_t bytes = 4096;
  bool write = false;
  bool sequential = false;  // of a sequential job (rw read/write/rw): the drive's write path collects none of it
};

}  // namespace nvmesim
