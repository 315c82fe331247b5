// The write path of a drive (DeviceProfile::write_path): the write buffer and the flash
// work that drains it, on the same flash targets reads wait for (Device::start_on_target).
//
// Each target does one write-side operation at a time, taken when it is free of the
// previous one, in this order:
//   1. a garbage-collection relocation, while relocations are owed: a read of the victim's
//      valid data (media_read) and its program (program), program_kib moved;
//   2. an erase (erase), once a block's worth (block_kib) has been programmed since the last;
//   3. a host program of program_kib of the buffer's acknowledged data (or less, when
//      writes wait for space and no other program would free it), which owes (WA - 1)
//      relocations per random byte it programs (sequential writes invalidate whole blocks:
//      none). Its bytes leave the buffer when it ends.
// An operation holds its target from when the reads booked on it before are done; reads
// booked after wait behind it (read/write interference). Fresh out of the box (state fob)
// nothing is collected or erased. So the steady state's rate of host data is
//   targets x program_kib / (program + (WA - 1) (media_read + program) + WA x program_kib /
//   block_kib x erase),
// and a random-write workload faster than that fills the buffer and waits for its space.
//
// With program_spread > 0 a program's time is drawn around `program` (the pulses a NAND
// program needs vary page to page) and the run starts mid-stream, each target partway
// through a program (its time left drawn), as in a long run's steady state. With one time
// for every program and every target starting together, a full buffer's targets program in
// lockstep and free its space in bursts of the whole drive, a rhythm no real drive keeps
// (docs/journal/2026-12-06-program-time-spread.md). 0: the model as it was.
//
// With gc_pace_spread > 0 (steady state), collection goes in phases: in each, the
// relocations owed per random byte programmed are (WA - 1) x f, f drawn uniformly within
// gc_pace_spread of 1, and a phase lasts an exponential amount of host data programmed
// (mean gc_pace_phase_mib), so that over many phases every host byte owes WA - 1 on
// average, as valid data requires. Firmware paces collection by its pool of free blocks,
// which it lets run down and rebuilds, and the host's steady-state rate swings with it
// over seconds; the run starts in a phase drawn as the seed's (a phase's remaining length
// is exponential too), which a window of milliseconds mostly stays in: the run-to-run
// spread of a steady-state write (docs/drive-model.md). Its own stream ("gc_pace", the
// drive's index), drawn at the first write: runs that do not write are as before.
//
// The run starts with a state drawn from the profile by the drive's own stream
// ("drive_state", its index): buffer fill and GC backlog, applied at its first write, so
// that a run without writes is the run it was without a write path. The largest state a
// profile can draw takes the targets at most drawn_state_settling(profile) to work off
// (relocations and erases go before host data, and the drawn fill is programmed first);
// the scenario loader makes a writing run's warm-up at least that long, so that a measured
// window does not start inside the work-off, whose length differs seed to seed.
#pragma once

#include <cstdint>
#include <vector>

#include "models/device/picoseconds.h"
#include "models/device/write_buffer.h"
#include "models/system/ring_fifo.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "vocab/profiles.h"
#include "vocab/time.h"

namespace nvmesim {

struct FlashWriteStats {
  uint64_t host_programs = 0;
  uint64_t gc_programs = 0;       // relocations
  uint64_t erases = 0;
  uint64_t host_bytes_programmed = 0;
  uint64_t gc_bytes_programmed = 0;
  uint64_t buffer_stalls = 0;     // writes that found the buffer full and waited for space
  Duration buffer_wait;           // their waits
  uint64_t reads_behind_writes = 0;  // reads whose target was held by a program or erase
  Duration read_wait_behind_writes;  // and their waits
  // Inside the measured window only (as DeviceStats' busy figures): target time of every
  // write-side operation, and of garbage collection's (relocations and erases).
  int64_t flash_busy_ns = 0;
  int64_t gc_busy_ns = 0;
  bool written = false;  // the drive has had a write this run (its write path began)

  FlashWriteStats operator-(const FlashWriteStats& s) const {
    FlashWriteStats d = *this;
    d.host_programs -= s.host_programs;
    d.gc_programs -= s.gc_programs;
    d.erases -= s.erases;
    d.host_bytes_programmed -= s.host_bytes_programmed;
    d.gc_bytes_programmed -= s.gc_bytes_programmed;
    d.buffer_stalls -= s.buffer_stalls;
    d.buffer_wait -= s.buffer_wait;
    d.reads_behind_writes -= s.reads_behind_writes;
    d.read_wait_behind_writes -= s.read_wait_behind_writes;
    return d;
  }
};

class FlashWrites {
 public:
  // `targets`: each flash target's free time, shared with the reads; `done`: the owner's
  // handler of an operation's end (it calls finish, then admits waiting writes, then dispatch).
  FlashWrites(const DeviceProfile& p, std::vector<Time>& targets, sim::EventQueue& eq, sim::EventQueue::Bound done,
              const ps::MeasuredWindow& window, uint64_t seed, uint32_t index);

  // A write reached the buffer at `ready`: true if admitted now, else it waits (next_admitted).
  bool admit(uint64_t command, Time ready, uint32_t bytes);
  bool next_admitted(WriteBuffer::Waiting* w) { return buffer_.admit_waiting(w); }
  // An admitted write was acknowledged: its data can be programmed.
  void acknowledged(uint32_t bytes, bool sequential);
  // An operation ended (the event's argument); its target is free for the next.
  void finish(uint64_t arg);
  // Starts operations on free targets while there is work.
  void dispatch();
  // A read on `target` starting at `start` instead of `ready`: counts it if the target was
  // held by a write-side operation then.
  void read_waited(uint32_t target, Time ready, Time start) {
    if (start > ready && start == op_end_[target]) {
      ++stats_.reads_behind_writes;
      stats_.read_wait_behind_writes += start - ready;
    }
  }

  // The longest the drawn initial state can keep the targets busy before they take host
  // data: the target time of the largest state the profile draws (initial_buffer_fill_max
  // of the buffer programmed, its relocations (at the fastest pace of collection a phase
  // draws, gc_pace_spread) and erases; initial_gc_backlog_max on every
  // target) spread over the targets, plus the longest single operation (the bound of a
  // greedy list schedule: no target idles while that work is left). Zero without a write
  // path or without a drawn state.
  static Duration drawn_state_settling(const DeviceProfile& p);

  const FlashWriteStats& stats() const { return stats_; }
  double write_amplification() const { return wa_; }
  void count_buffer_wait(Duration d) {
    ++stats_.buffer_stalls;
    stats_.buffer_wait += d;
  }

 private:
  // The relocations of `share` of the largest GC backlog on `targets` targets.
  static double gc_backlog_relocations(const DeviceProfile& p, double share, std::size_t targets);
  enum Kind : uint64_t { kHost = 0, kGc = 1, kErase = 2 };
  void start(uint32_t target, Kind kind, Duration d, uint64_t bytes);
  Duration program_time();  // one program's, drawn around p.program (program_spread)
  void begin();  // the drawn initial state, at the first write
  void next_gc_phase();  // draws the pace and length of the next phase of collection
  uint64_t extra_ppm(double pace) const;  // relocations owed per random byte at `pace` x (WA - 1), x 1e6

  const DeviceProfile* p_;
  std::vector<Time>* targets_;
  sim::EventQueue* eq_;
  sim::EventQueue::Bound done_;
  const ps::MeasuredWindow* window_;
  WriteBuffer buffer_;
  std::vector<Time> op_end_;        // end of each target's last write-side operation
  RingFifo<uint32_t> free_;         // targets with no write-side operation, in the order freed
  uint64_t program_bytes_;
  uint64_t block_bytes_;
  double wa_ = 1;
  bool collects_ = false;           // steady state: relocations and erases
  // Relocations owed, in millionths of a program (integer: no drift); erase credit in bytes.
  uint64_t phase_extra_ppm_ = 0;    // (WA - 1) x f x 1e6: f 1, or the current phase's (gc_pace_spread)
  uint64_t phase_left_ = 0;         // host bytes the current phase has left
  uint64_t gc_owed_ = 0;
  uint64_t erase_credit_ = 0;
  uint32_t host_in_flight_ = 0;
  bool begun_ = false;
  uint64_t initial_fill_ = 0;       // drawn
  uint64_t initial_gc_ = 0;         // drawn, relocations
  sim::Rng program_rng_;            // each program's time ("flash_programs", the drive's index)
  sim::Rng gc_pace_rng_;            // the phases of collection ("gc_pace", the drive's index)
  double program_spread_ns_ = 0;    // program_spread x program, in ns
  FlashWriteStats stats_;
};

}  // namespace nvmesim
