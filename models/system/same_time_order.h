// Requests made at one simulated instant, served in an order of their own keys rather
// than in the order their events happened to run. Events at one instant run in the order
// they were scheduled, which a replay (or any change upstream that schedules the same
// events differently) does not keep; a shared resource that serves requests as they come
// would then hand its slots out differently. This collects an instant's requests and runs
// them, sorted by key (ties in request order), once every event of that instant has run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/event_queue.h"
#include "vocab/time.h"

namespace nvmesim {

class SameTimeOrder {
 public:
  using Fn = void (*)(void* ctx, uint64_t arg);

  // `rank` orders this batch's run against other batches' at the same instant.
  void bind(sim::EventQueue* eq, uint32_t rank) {
    eq_ = eq;
    rank_ = rank;
  }
  // Runs fn(ctx, arg) at the end of the current instant, after the requests with lower keys.
  void add(uint64_t key, Fn fn, void* ctx, uint64_t arg) {
    if (pending_.empty()) eq_->at_instant_end(rank_, &SameTimeOrder::on_instant_end, this);
    pending_.push_back({key, static_cast<uint32_t>(pending_.size()), fn, ctx, arg});
  }

 private:
  struct Request {
    uint64_t key;
    uint32_t order;
    Fn fn;
    void* ctx;
    uint64_t arg;
  };
  static void on_instant_end(void* self) {
    auto* o = static_cast<SameTimeOrder*>(self);
    o->running_.swap(o->pending_);  // a request made while these run goes to a new batch
    std::sort(o->running_.begin(), o->running_.end(),
              [](const Request& a, const Request& b) { return a.key != b.key ? a.key < b.key : a.order < b.order; });
    for (const Request& r : o->running_) r.fn(r.ctx, r.arg);
    o->running_.clear();
  }

  sim::EventQueue* eq_ = nullptr;
  uint32_t rank_ = 0;
  std::vector<Request> pending_;
  std::vector<Request> running_;
};

}  // namespace nvmesim
