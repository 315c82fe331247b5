// A fully resolved scenario: what the loader produces from JSON (or a fio job file) and
// what the simulator and the hw runner consume. Plain data, already validated.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vocab/param_map.h"
#include "vocab/profiles.h"
#include "vocab/time.h"

namespace nvmesim {

enum class IoEngine { libaio, io_uring };
enum class RwMode { randread, randwrite, read, write, randrw, rw };

// fio's name of an rw mode.
constexpr const char* rw_name(RwMode m) {
  switch (m) {
    case RwMode::randread: return "randread";
    case RwMode::randwrite: return "randwrite";
    case RwMode::read: return "read";
    case RwMode::write: return "write";
    case RwMode::randrw: return "randrw";
    case RwMode::rw: return "rw";
  }
  return "randread";
}
enum class RateProcess { linear, poisson };

// One fio job section. numjobs clones are expanded by the simulator, each pinned to the
// next core of cpus_allowed (fio's cpus_allowed_policy=split).
struct JobSpec {
  std::string name;
  IoEngine ioengine = IoEngine::io_uring;
  bool hipri = false;                 // io_uring IOPOLL on polled queues
  RwMode rw = RwMode::randread;
  uint32_t rwmixread = 50;            // percent reads for randrw / rw
  uint32_t bs = 4096;                 // bytes
  uint32_t iodepth = 1;
  uint32_t iodepth_batch_submit = 1;
  uint32_t iodepth_batch_complete_min = 1;
  uint32_t iodepth_batch_complete_max = 0;  // 0: same as iodepth (fio's default)
  uint32_t numjobs = 1;
  std::vector<uint32_t> cpus_allowed;       // empty: cores assigned in order
  std::vector<uint32_t> drives;             // indexes into Scenario::drives
  double rate_iops = 0;                     // 0: closed loop; else per-job open-loop rate
  RateProcess rate_process = RateProcess::linear;
  // The engine's completion posting for this job when it differs from the host's (a
  // program that sets up its ring differently: fio's io_uring engine and t/io_uring set
  // DEFER_TASKRUN since 2022, older set-ups do not; docs/calibration.md, "Host costs").
  std::optional<CompletionPosting> completion;
  // io_uring: one io_uring_enter both submits a batch and waits for completions
  // (t/io_uring, liburing's io_uring_submit_and_wait). fio's io_uring engine commits with
  // one call and waits with another, as libaio's io_submit and io_getevents must.
  bool submit_and_wait = false;
};

struct DriveSpec {
  std::string name;
  DeviceProfile profile;
  // Where it sits (host platform): unset, the platform's default placement.
  std::optional<uint32_t> socket;
  std::optional<uint32_t> root_complex;  // within its socket
};

// A policy by name with every parameter's value (given or default), validated by the
// registry (policies/registry.h validate_policy); the policy's typed Params are built
// from it where the policy is constructed.
struct PolicySpec {
  std::string name = "irq";
  policy::ParamMap params;
};

struct Scenario {
  std::string name;
  uint64_t seed = 1;
  Duration duration = Duration::ms(100);  // measured time, after warm-up
  Duration warmup = Duration::ms(10);     // ramp_time: run but excluded from results
  // A warm-up shorter than the policy's first decision is lengthened by that much (the
  // warm-up asked for then counts from the decision), unless this is false.
  bool warmup_covers_policy = true;
  // A warm-up shorter than the time a written drive's drawn initial state (write buffer
  // fill, GC backlog) can take to work off is lengthened to it, unless this is false.
  bool warmup_covers_drive_state = true;
  std::optional<Duration> warmup_given;   // set when the loader lengthened the warm-up
  Duration warmup_drive_state;            // the settling it covered (zero: none)
  HostProfile host;
  uint32_t io_queues = 0;       // per drive; 0: one per core, capped by the drive
  uint32_t queue_depth = 1024;  // io_queue_depth (nvme module parameter)
  std::vector<DriveSpec> drives;
  PolicySpec policy;
  std::vector<JobSpec> jobs;
};

}  // namespace nvmesim
