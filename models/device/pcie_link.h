// A drive's PCIe link: one transfer at a time in each direction at the profile's
// bandwidth (the bandwidth ceiling), reserved in picoseconds; its busy time counts only
// inside the measured window.
#pragma once

#include <algorithm>
#include <cstdint>

#include "models/device/picoseconds.h"
#include "vocab/time.h"

namespace nvmesim {

class PcieLink {
 public:
  // bytes_per_s 0: transfers take no time.
  explicit PcieLink(double bytes_per_s) : ps_per_byte_(bytes_per_s > 0 ? 1e12 / bytes_per_s : 0) {}

  // `bytes` ready to cross at `ready`: when they have crossed (rounded up to the ns).
  Time to_host(uint32_t bytes, Time ready) { return transfer(d2h_free_ps_, bytes, ready); }
  Time to_device(uint32_t bytes, Time ready) { return transfer(h2d_free_ps_, bytes, ready); }
  // The time `bytes` take on the link alone, in picoseconds.
  int64_t transfer_ps(uint32_t bytes) const { return ps::clamp(ps_per_byte_ * bytes); }

  void measure_window(const ps::MeasuredWindow& w) { window_ = w; }
  int64_t busy_ps() const { return busy_ps_; }  // both directions, inside the window

 private:
  Time transfer(int64_t& free_ps, uint32_t bytes, Time ready) {
    const int64_t start = std::min(std::max(free_ps, ready.ns() * ps::kPerNs), ps::kHorizon);
    // Most transfers are of one size (the job's block): its time is kept, not recomputed.
    if (bytes != last_bytes_) {
      last_bytes_ = bytes;
      last_ps_ = transfer_ps(bytes);
    }
    const int64_t tx = std::min(last_ps_, ps::kHorizon - start);  // busy time up to the horizon
    free_ps = start + tx;
    busy_ps_ += window_.in_ps(start, free_ps);
    return ps::to_time_ceil(free_ps);
  }

  double ps_per_byte_;
  int64_t d2h_free_ps_ = 0;  // device to host free from
  int64_t h2d_free_ps_ = 0;  // host to device
  uint32_t last_bytes_ = 0;  // the last transfer's size and its time
  int64_t last_ps_ = 0;
  int64_t busy_ps_ = 0;
  ps::MeasuredWindow window_;
};

}  // namespace nvmesim
