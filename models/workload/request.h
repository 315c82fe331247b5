// One I/O request from submission by the application to its reaping. The command id in
// the SQE/CQE is the request's index in the simulation's request pool.
#pragma once

#include <cstdint>

#include "vocab/time.h"

namespace nvmesim {

// What every run reads of a request, in 32 bytes: two to a cache line and none across
// two (at 56 bytes most were), since the device and the reaping job find it cold.
struct Request {
  Time submitted;        // the application issued it (start of its submit call)
  uint32_t job = 0;      // job clone index
  uint32_t queue = 0;    // global queue index
  uint32_t qid = 0;      // I/O queue index within its drive
  uint32_t bytes = 4096;
  bool write = false;
  bool sequential = false;  // of a sequential job (rw read/write/rw): the drive's write path collects none of it
};
static_assert(sizeof(Request) == 32, "two requests to a cache line");

// What only a command trace and a replay read of a request (RunObserver::watches_commands),
// in a pool of its own, indexed as the requests, that exists only then (System::run).
struct RequestTimes {
  Time doorbell;         // the SQ tail doorbell covering it was written
  Time posted;           // the device posts (or posted) its CQE
  Time unit_done;        // the device's unit finished: the posting is known from then on
  uint32_t command = 0;  // replay: the trace command it carries (index into ReplayTrace::commands)
};

}  // namespace nvmesim
