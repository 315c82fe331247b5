#include "models/device/msix_vectors.h"

namespace nvmesim {

void MsixVectors::add_cq(uint32_t vector, bool interrupts_enabled) {
  if (vectors_.size() <= vector) vectors_.resize(vector + 1);
  vectors_[vector].interrupts_enabled = interrupts_enabled;
}

void MsixVectors::cq_consumed(uint32_t vector) {
  if (restart_ != CoalescingRestart::on_cq_doorbell) return;
  Vector& v = vectors_[vector];
  if (v.aggregated == 0) return;
  v.aggregated = 0;
  v.coalesce_timer.cancel();
}

void MsixVectors::signal(uint32_t vector) {
  Vector& v = vectors_[vector];
  if (!v.interrupts_enabled) return;  // polled queue: no interrupt at all
  if (coalescing_active() && !v.coalescing_disabled) {
    if (++v.aggregated < thr_ + 1) {
      ++coalesced_;
      if (v.aggregated == 1) start_aggregation_time(vector);
      return;
    }
    v.aggregated = 0;
    v.coalesce_timer.cancel();
  }
  send(vector);
}

void MsixVectors::start_aggregation_time(uint32_t vector) {
  const Duration t = Duration::us(100) * time_100us_;
  if (timer_ == CoalescingTimer::per_vector) {
    eq_->schedule_in(t, &MsixVectors::on_vector_timer, this, vectors_[vector].coalesce_timer.arm(vector).pack());
  } else if (!controller_timer_running_) {
    controller_timer_running_ = true;
    eq_->schedule_in(t, &MsixVectors::on_controller_timer, this, controller_timer_.arm(0).pack());
  }
}

// One timer for the whole controller: when it expires, every vector holding postings
// is signalled, whichever started the time.
void MsixVectors::on_controller_timer(void* self, uint64_t arg) {
  auto* m = static_cast<MsixVectors*>(self);
  if (!m->controller_timer_.current(sim::TimerToken::unpack(arg))) return;
  m->controller_timer_running_ = false;
  for (uint32_t v = 0; v < m->vectors_.size(); ++v) {
    if (m->vectors_[v].aggregated == 0) continue;
    m->vectors_[v].aggregated = 0;
    m->send(v);
  }
}

void MsixVectors::on_vector_timer(void* self, uint64_t arg) {
  auto* m = static_cast<MsixVectors*>(self);
  const sim::TimerToken token = sim::TimerToken::unpack(arg);
  Vector& v = m->vectors_[token.owner];
  if (!v.coalesce_timer.current(token) || v.aggregated == 0) return;
  v.aggregated = 0;
  v.coalesce_timer.cancel();
  m->send(token.owner);
}

void MsixVectors::send(uint32_t vector) {
  Vector& v = vectors_[vector];
  if (v.masked) {
    v.pending = true;
    ++held_;
    return;
  }
  emit_(ctx_, vector);
}

void MsixVectors::set_masked(uint32_t vector, bool masked) {
  Vector& v = vectors_[vector];
  v.masked = masked;
  if (!masked && v.pending) {
    v.pending = false;
    emit_(ctx_, vector);
  }
}

void MsixVectors::set_coalescing(uint32_t thr, uint32_t time_100us) {
  thr_ = thr;
  time_100us_ = time_100us;
  if (coalescing_active()) return;
  // Turning coalescing off releases what was being held back.
  for (uint32_t v = 0; v < vectors_.size(); ++v) {
    if (vectors_[v].aggregated) {
      vectors_[v].aggregated = 0;
      vectors_[v].coalesce_timer.cancel();
      send(v);
    }
  }
}

}  // namespace nvmesim
