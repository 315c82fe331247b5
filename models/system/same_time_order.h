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
    if (pending_.empty() && !future_due(eq_->now())) eq_->at_instant_end(rank_, &SameTimeOrder::on_instant_end, this);
    pending_.push_back({key, static_cast<uint32_t>(pending_.size()), fn, ctx, arg});
  }
  // The same request for a later instant `t`, made now: it runs at the end of `t` with
  // that instant's requests, in the same order as if add() had been called at `t` before
  // that instant's end, and no event is needed at `t` to make it. Its key must be unique
  // among the instant's requests (the order among equal keys is the order of add calls).
  void add_at(Time t, uint64_t key, Fn fn, void* ctx, uint64_t arg) {
    // In time order (equal times in the order made); the instant's end phase is asked for
    // once, by its first request.
    future_.push_back({t, {key, 0, fn, ctx, arg}});
    std::size_t j = future_.size() - 1;
    for (; j > future_head_ && future_[j - 1].at > t; --j) std::swap(future_[j], future_[j - 1]);
    if (j == future_head_ || future_[j - 1].at != t)
      eq_->at_instant_end_at(t, rank_, &SameTimeOrder::on_instant_end, this);
  }

 private:
  struct Request {
    uint64_t key;
    uint32_t order;
    Fn fn;
    void* ctx;
    uint64_t arg;
  };
  struct FutureRequest {
    Time at;
    Request r;
  };
  // Whether add_at requests for now are waiting (their end phase is asked for): none is
  // earlier, each instant's end phase takes its own.
  bool future_due(Time now) const { return future_head_ < future_.size() && future_[future_head_].at == now; }
  // One request (the usual case) runs as a tail call: nothing to sort, nothing to swap.
  static void on_instant_end(void* self) {
    auto* o = static_cast<SameTimeOrder*>(self);
    const Time now = o->eq_->now();
    if (o->pending_.empty()) {  // asked for by add_at: one is due now, more perhaps
      const std::size_t h = o->future_head_;
      if (h + 1 == o->future_.size() || o->future_[h + 1].at != now) {
        const Request r = o->future_[h].r;
        o->pop_future();
        return r.fn(r.ctx, r.arg);
      }
    } else if (o->pending_.size() == 1 && !o->future_due(now)) {
      const Request r = o->pending_.front();
      o->pending_.clear();  // a request made while it runs goes to a new batch
      return r.fn(r.ctx, r.arg);
    }
    o->run_batch(now);
  }
  [[gnu::noinline]] void run_batch(Time now) {
    running_.swap(pending_);  // a request made while these run goes to a new batch
    while (future_due(now)) {  // add_at's for now join the batch after those made at now
      running_.push_back(future_[future_head_].r);
      running_.back().order = static_cast<uint32_t>(running_.size() - 1);
      pop_future();
    }
    std::sort(running_.begin(), running_.end(),
              [](const Request& a, const Request& b) { return a.key != b.key ? a.key < b.key : a.order < b.order; });
    for (const Request& r : running_) r.fn(r.ctx, r.arg);
    running_.clear();
  }

  void pop_future() {
    if (++future_head_ == future_.size()) {
      future_.clear();
      future_head_ = 0;
    } else if (future_head_ >= 64 && 2 * future_head_ >= future_.size()) {  // taken ones out, now and then
      future_.erase(future_.begin(), future_.begin() + static_cast<std::ptrdiff_t>(future_head_));
      future_head_ = 0;
    }
  }

  sim::EventQueue* eq_ = nullptr;
  uint32_t rank_ = 0;
  std::vector<Request> pending_;
  std::vector<Request> running_;
  std::vector<FutureRequest> future_;  // add_at's from future_head_ on, for later instants, in time order
  std::size_t future_head_ = 0;
};

}  // namespace nvmesim
