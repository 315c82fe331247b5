#include "models/device/flash_writes.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "models/device/write_amplification.h"
#include "sim/rng.h"

namespace nvmesim {

namespace {
constexpr uint64_t kPpm = 1000000;
constexpr uint32_t kTargetBits = 21;  // units <= 1 << 20
constexpr uint32_t kKindBits = 2;
}  // namespace

FlashWrites::FlashWrites(const DeviceProfile& p, std::vector<Time>& targets, sim::EventQueue& eq,
                         sim::EventQueue::Bound done, const ps::MeasuredWindow& window, uint64_t seed, uint32_t index)
    : p_(&p),
      targets_(&targets),
      eq_(&eq),
      done_(done),
      window_(&window),
      buffer_(uint64_t{p.write_buffer_kib} * 1024),
      op_end_(targets.size(), Time::never()),
      program_bytes_(uint64_t{p.program_kib} * 1024),
      block_bytes_(uint64_t{p.block_kib} * 1024),
      program_rng_(seed, sim::stream_key("flash_programs", index)),
      gc_pace_rng_(seed, sim::stream_key("gc_pace", index)),
      program_spread_ns_(p.program_spread * static_cast<double>(p.program.count_ns())) {
  assert(p.write_path() && !targets.empty() && program_bytes_ > 0 && block_bytes_ >= program_bytes_);
  for (uint32_t t = 0; t < targets.size(); ++t) free_.push_back(t);
  collects_ = p.state == DriveState::steady;
  if (collects_) {
    wa_ = greedy_write_amplification(p.over_provisioning, p.utilization);
    phase_extra_ppm_ = extra_ppm(1);
  }
  // The initial state: its own stream, drawn whether or not it is used, so that nothing
  // else's draws depend on it.
  sim::Rng rng(seed, sim::stream_key("drive_state", index));
  // min + u (max - min) is u x max exactly when min is 0 (the draws before min existed).
  const double fill = p.initial_buffer_fill_min + rng.uniform() * (p.initial_buffer_fill_max - p.initial_buffer_fill_min);
  const double backlog = rng.uniform();
  initial_fill_ = static_cast<uint64_t>(fill * static_cast<double>(buffer_.capacity()));
  if (collects_) initial_gc_ = static_cast<uint64_t>(gc_backlog_relocations(p, backlog, targets.size()));
}

// The relocations of a drawn GC backlog: `share` of initial_gc_backlog_max of work on each
// of `targets` targets, a relocation (a media read and a program) at its mean time. The
// constructor's draw and drawn_state_settling's bound (share 1) both count it so.
double FlashWrites::gc_backlog_relocations(const DeviceProfile& p, double share, std::size_t targets) {
  const double per_op = static_cast<double>((p.media_read + p.program).count_ns());
  return share * static_cast<double>(p.initial_gc_backlog_max.count_ns()) / per_op * static_cast<double>(targets);
}

Duration FlashWrites::drawn_state_settling(const DeviceProfile& p) {
  if (!p.write_path() || p.units == 0 || p.program_kib == 0) return Duration::zero();
  const bool collects = p.state == DriveState::steady;
  const double wa = collects ? greedy_write_amplification(p.over_provisioning, p.utilization) : 1.0;
  const double units = static_cast<double>(p.units);
  // As the constructor draws them, at their largest.
  const double fill_programs =
      std::ceil(p.initial_buffer_fill_max * static_cast<double>(p.write_buffer_kib) / static_cast<double>(p.program_kib));
  // Programs at the longest their spread draws, so that the bound holds at every seed (the
  // backlog's count is the constructor's, from the mean).
  const double program_max_ns = std::ceil(static_cast<double>(p.program.count_ns()) * (1 + p.program_spread));
  const double relocation_ns = static_cast<double>(p.media_read.count_ns()) + program_max_ns;
  const double backlog = collects ? std::floor(gc_backlog_relocations(p, 1.0, p.units)) : 0;
  // The fill's relocations at the fastest pace a phase of collection draws (gc_pace_spread).
  const double relocations = collects ? std::ceil(fill_programs * (wa - 1) * (1 + p.gc_pace_spread)) + backlog : 0;
  if (fill_programs == 0 && relocations == 0) return Duration::zero();
  const double erases =
      collects ? std::ceil((fill_programs + relocations) * static_cast<double>(p.program_kib) / static_cast<double>(p.block_kib)) : 0;
  const double work_ns = fill_programs * program_max_ns + relocations * relocation_ns +
                         erases * static_cast<double>(p.erase.count_ns());
  double longest_ns = program_max_ns;
  if (collects) longest_ns = std::max({longest_ns, relocation_ns, static_cast<double>(p.erase.count_ns())});
  if (p.program_spread > 0) longest_ns += static_cast<double>(p.program.count_ns());  // begin()'s programs under way
  // Capped far below int64's end (the loader caps the warm-up at its run-length limit).
  return Duration::ns(static_cast<int64_t>(std::min(std::ceil(work_ns / units + longest_ns), 4e18)));
}

void FlashWrites::begin() {
  begun_ = true;
  stats_.written = true;
  if (program_spread_ns_ > 0) {
    // Mid-stream, as a long run's steady state is: each target is partway through a program
    // begun before the run, U[0, 1) of program_ns left. Started together, the targets would
    // take as long as the spread needs to drift apart.
    const Time now = eq_->now();
    for (std::size_t t = 0; t < targets_->size(); ++t) {
      const Time left =
          now + Duration::ns(static_cast<int64_t>(program_rng_.uniform() * static_cast<double>(p_->program.count_ns())));
      (*targets_)[t] = max((*targets_)[t], left);
      op_end_[t] = (*targets_)[t];
    }
  }
  buffer_.preload(initial_fill_, false);
  gc_owed_ += initial_gc_ * program_bytes_ * kPpm;
  // The phase the run starts in: its pace drawn, and what is left of it exponential as a
  // whole phase is (the run starts at no particular point of the drive's long run).
  if (collects_ && p_->gc_pace_spread > 0) next_gc_phase();
}

uint64_t FlashWrites::extra_ppm(double pace) const {
  return static_cast<uint64_t>(std::llround((wa_ - 1) * pace * static_cast<double>(kPpm)));
}

void FlashWrites::next_gc_phase() {
  const double f = 1 + p_->gc_pace_spread * (2 * gc_pace_rng_.uniform() - 1);
  phase_extra_ppm_ = extra_ppm(f);
  const double mean = static_cast<double>(p_->gc_pace_phase_mib) * 1048576.0;
  phase_left_ = static_cast<uint64_t>(std::min(std::ceil(gc_pace_rng_.exponential(mean)), 1e18));
}

bool FlashWrites::admit(uint64_t command, Time ready, uint32_t bytes) {
  if (!begun_) begin();
  const bool now = buffer_.admit(command, ready, bytes);
  if (!now) dispatch();  // a full buffer of data short of a program: program what it holds
  return now;
}

void FlashWrites::acknowledged(uint32_t bytes, bool sequential) {
  buffer_.acknowledged(bytes, sequential);
  dispatch();
}

void FlashWrites::start(uint32_t target, Kind kind, Duration d, uint64_t bytes) {
  Time& free = (*targets_)[target];
  const Time begin = max(eq_->now(), free);
  free = begin + d;
  op_end_[target] = free;
  const int64_t busy = window_->in_ns(begin.ns(), free.ns());
  stats_.flash_busy_ns += busy;
  if (kind != kHost) stats_.gc_busy_ns += busy;
  eq_->schedule(free, done_, (bytes << (kTargetBits + kKindBits)) | (uint64_t{kind} << kTargetBits) | target);
}

Duration FlashWrites::program_time() {
  if (program_spread_ns_ == 0) return p_->program;  // no draw: the model as it was
  const double u = program_rng_.uniform();
  return p_->program + Duration::ns(std::llround(program_spread_ns_ * (2 * u - 1)));
}

void FlashWrites::dispatch() {
  while (!free_.empty()) {
    const uint32_t t = free_.front();
    if (gc_owed_ >= program_bytes_ * kPpm) {  // 1. a relocation
      gc_owed_ -= program_bytes_ * kPpm;
      erase_credit_ += program_bytes_;
      ++stats_.gc_programs;
      stats_.gc_bytes_programmed += program_bytes_;
      free_.pop_front();
      start(t, kGc, p_->media_read + program_time(), 0);
    } else if (erase_credit_ >= block_bytes_) {  // 2. an erase
      erase_credit_ -= block_bytes_;
      ++stats_.erases;
      free_.pop_front();
      start(t, kErase, p_->erase, 0);
    } else if (buffer_.dirty() >= program_bytes_ ||
               (buffer_.dirty() > 0 && buffer_.has_waiting() && host_in_flight_ == 0)) {  // 3. a host program
      uint64_t random = 0;
      const uint64_t n = buffer_.take_dirty(program_bytes_, &random);
      if (collects_) {
        gc_owed_ += phase_extra_ppm_ * random;
        erase_credit_ += n;
        if (phase_left_ > 0) {  // gc_pace_spread: the phase ends with the host data it lasts
          if (random < phase_left_) {
            phase_left_ -= random;
          } else {
            next_gc_phase();
          }
        }
      }
      ++host_in_flight_;
      ++stats_.host_programs;
      stats_.host_bytes_programmed += n;
      free_.pop_front();
      start(t, kHost, program_time(), n);
    } else {
      return;
    }
  }
}

void FlashWrites::finish(uint64_t arg) {
  const auto target = static_cast<uint32_t>(arg & ((uint64_t{1} << kTargetBits) - 1));
  const auto kind = static_cast<Kind>((arg >> kTargetBits) & ((uint64_t{1} << kKindBits) - 1));
  if (kind == kHost) {
    --host_in_flight_;
    buffer_.programmed(arg >> (kTargetBits + kKindBits));
  }
  free_.push_back(target);
}

}  // namespace nvmesim
