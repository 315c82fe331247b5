// One fio job clone: a thread pinned to a core that submits and reaps I/O with fio's
// semantics (iodepth, batch submit, batch complete min/max, closed loop or rate_iops).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/host/cpu_core.h"
#include "models/system/ring_fifo.h"
#include "sim/rng.h"
#include "vocab/histogram.h"
#include "vocab/profiles.h"
#include "vocab/scenario.h"
#include "vocab/time.h"

namespace nvmesim {

struct Job {
  enum class Segment : uint8_t { none, submit, reap, block, poll, idle_wait };

  const JobSpec* spec = nullptr;
  uint32_t index = 0;       // clone index among all jobs
  uint32_t spec_index = 0;  // index into Scenario::jobs
  uint32_t clone = 0;       // 0..numjobs-1
  uint32_t core = 0;
  EngineCosts costs;
  bool polls = false;       // reaps by polling its queues (io_uring hipri on poll queues)
  // Alone on its core with polled queues of its own: passes of its polling loop that are
  // certain to find nothing fold into one segment (JobModel::fold_empty_passes).
  bool folds_empty_polls = false;

  std::vector<uint32_t> queues;  // global queue per target drive
  uint32_t next_target = 0;     // index into queues: the next submission's, round robin

  uint32_t inflight = 0;             // submitted, not yet reaped
  std::vector<uint32_t> free_reqs;   // request ids not in use
  IdFifo ready;                      // completed and posted, not yet reaped
  bool blocked = false;
  uint32_t wait_need = 0;
  bool in_syscall = false;           // the last segment's call is still open (an io_uring submit,
                                     // a wait, a poll pass): see JobModel::begin
  bool in_wait = false;              // blocked inside a wait call (woken early: still inside it)
  uint32_t unposted = 0;             // handed off as task_work: the job's next segment posts them
  // t/io_uring's loop (submit_and_wait, JobModel::begin_enter_loop): the last
  // io_uring_enter waits for wait_need completions; a call returned, reap the CQ ring.
  bool call_waits = false;
  bool reap_due = false;

  // Open loop (rate_iops, or a replay): arrivals waiting to be issued.
  uint64_t backlog = 0;
  Duration mean_gap;

  // Replay (--replay): the trace's commands this clone submits, in submit order.
  bool replays = false;
  std::vector<uint32_t> replay_commands;
  std::size_t replay_arrived = 0;  // whose recorded submit time has come
  std::size_t replay_next = 0;     // next to submit
  bool open_loop() const { return replays || mean_gap > Duration::zero(); }

  Task task;
  Segment seg = Segment::none;
  uint32_t seg_count = 0;

  sim::Rng rng{0, 0};
  // Measured over the window: latency per target drive and direction (index
  // 2 x target + 1 for writes: one record per I/O, merged per target or per direction
  // when the results are gathered), I/Os and bytes per target drive, and per direction
  // over all targets (0: reads, 1: writes: fio's read and write sections).
  std::vector<sim::Histogram> latency;
  std::vector<uint64_t> ios;
  std::vector<uint64_t> bytes;
  std::array<uint64_t, 2> ios_by_dir{};
  std::array<uint64_t, 2> bytes_by_dir{};
};

}  // namespace nvmesim
