// A controller's MSI-X vectors as its completions signal them: the table's mask and
// pending bits, and NVMe interrupt coalescing (Features 08h and 09h) with its aggregation
// timers. A CQE posting signals its queue's vector; what coalescing and the mask let
// through goes to the controller's message path (`Emit`), which sends it to the host.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/event_queue.h"
#include "sim/timer_token.h"
#include "vocab/profiles.h"

namespace nvmesim {

class MsixVectors {
 public:
  using Emit = void (*)(void* ctx, uint32_t vector);
  MsixVectors(sim::EventQueue& eq, const DeviceProfile& profile, void* ctx, Emit emit)
      : eq_(&eq), timer_(profile.coalescing_timer), restart_(profile.coalescing_count_restart), ctx_(ctx), emit_(emit) {}
  MsixVectors(const MsixVectors&) = delete;  // its timers' events hold its address
  MsixVectors& operator=(const MsixVectors&) = delete;

  // A CQ signalling `vector` (several CQs may share one); interrupts_enabled is its IEN.
  void add_cq(uint32_t vector, bool interrupts_enabled);
  // A CQE was posted to a CQ of `vector`.
  void signal(uint32_t vector);
  // The host moved a CQ head of `vector`: with the count restarting on the CQ doorbell,
  // the entries held no longer need an interrupt.
  void cq_consumed(uint32_t vector);

  // MSI-X table mask bit; unmasking with the pending bit set sends the message.
  void set_masked(uint32_t vector, bool masked);
  bool pending(uint32_t vector) const { return vectors_[vector].pending; }

  // Coalescing as Set Features set it, effective now. thr is 0's based; thr == 0 or
  // time_100us == 0 turns coalescing off and releases what was held.
  void set_coalescing(uint32_t thr, uint32_t time_100us);
  void set_coalescing_disabled(uint32_t vector, bool disabled) { vectors_[vector].coalescing_disabled = disabled; }
  bool coalescing_active() const { return thr_ != 0 && time_100us_ != 0; }

  uint64_t held() const { return held_; }            // signals that found the vector masked
  uint64_t coalesced() const { return coalesced_; }  // signals held back by coalescing

 private:
  struct Vector {
    bool masked = false;
    bool pending = false;
    bool coalescing_disabled = false;  // Feature 09h CD
    bool interrupts_enabled = true;    // IEN of the CQ(s) using it
    uint32_t aggregated = 0;
    sim::TimerGeneration coalesce_timer;
  };
  // The aggregation time starts with a vector's first held posting (per the profile:
  // the vector's own timer, or the controller's one timer if it is not running).
  void start_aggregation_time(uint32_t vector);
  static void on_vector_timer(void* self, uint64_t arg);
  static void on_controller_timer(void* self, uint64_t arg);
  // Past coalescing: the message goes unless the vector is masked (then it is pending).
  void send(uint32_t vector);

  sim::EventQueue* eq_;
  CoalescingTimer timer_;
  CoalescingRestart restart_;
  void* ctx_;
  Emit emit_;
  std::vector<Vector> vectors_;
  uint32_t thr_ = 0;
  uint32_t time_100us_ = 0;
  sim::TimerGeneration controller_timer_;  // CoalescingTimer::controller
  bool controller_timer_running_ = false;
  uint64_t held_ = 0, coalesced_ = 0;
};

}  // namespace nvmesim
