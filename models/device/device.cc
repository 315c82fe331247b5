// Building a Device: its state, its bound handlers, its queues and the measured window.
// What it does is in one file per concern (device.h).
#include "models/device/device.h"

namespace nvmesim {

Device::Device(sim::EventQueue& eq, const DeviceProfile& profile, uint32_t index, uint64_t seed,
               MsixSink sink, std::vector<Request>& requests)
    : eq_(&eq),
      doorbell_seen_(eq.bind(&Device::on_doorbell_seen, this)),
      front_end_(eq.bind(&Device::on_front_end, this)),
      unit_done_(eq.bind(&Device::on_unit_done, this)),
      target_done_(eq.bind(&Device::on_target_done, this)),
      cqe_post_(eq.bind(&Device::on_cqe_post, this)),
      port_turn_(eq.bind(&Device::on_port_turn, this)),
      flash_done_(eq.bind(&Device::on_flash_done, this)),
      profile_(profile),
      index_(index),
      rng_(seed, sim::stream_key("device", index)),
      sink_(sink),
      requests_(&requests),
      read_time_(profile.read),
      write_time_(profile.write),
      vectors_(eq, profile, this, &Device::emit),
      link_(profile.link_bytes_per_s),
      target_rng_(seed, sim::stream_key("flash_target", index)) {
  fe_gap_ps_ = profile.iops_max > 0 ? ps::clamp(1e12 / profile.iops_max) : 0;
  if (profile.media_read > Duration::zero()) target_free_.assign(profile.units, Time{});
  // profile_, not profile: FlashWrites keeps a pointer to it.
  if (profile.write_path() && !target_free_.empty())
    writes_.emplace(profile_, target_free_, eq, flash_done_, window_, seed, index);
}

uint32_t Device::add_queue(QueueMemory* mem, uint32_t depth, uint32_t vector, bool interrupts_enabled) {
  SqState q;
  q.mem = mem;
  q.depth = depth;
  q.cq.depth = depth;
  q.vector = vector;
  queues_.push_back(q);
  vectors_.add_cq(vector, interrupts_enabled);
  return static_cast<uint32_t>(queues_.size() - 1);
}

void Device::measure_window(Time from, Time to) {
  window_.set(from, to);
  link_.measure_window(window_);
}

}  // namespace nvmesim
