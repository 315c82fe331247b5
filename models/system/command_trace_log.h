// The simulator's side of the per-command trace (docs/trace-format.md): records within a
// time window, kept until the run ends and then written in time order with the same
// writer the hw runner uses, so a simulated and a real run compare row by row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <tuple>
#include <variant>
#include <vector>

#include "vocab/command_trace.h"
#include "vocab/time.h"

namespace nvmesim {

class CommandTraceLog {
 public:
  CommandTraceLog(Time from, Time to, std::size_t max_records = 4'000'000)
      : from_(from), to_(to), max_(max_records) {}

  bool wants(Time t) const { return t >= from_ && t < to_; }
  template <class R>
  void add(Time t, R record) {
    if (!wants(t)) return;
    if (rows_.size() >= max_) {
      ++dropped_;
      return;
    }
    rows_.push_back(Row{t, rows_.size(), std::move(record)});
  }
  uint64_t dropped() const { return dropped_; }
  Time from() const { return from_; }
  Time to() const { return to_; }
  // A command submitted inside the window whose CQE the window did not see.
  void add_inflight(trace::InflightRecord r) {
    r.at = to_;
    inflight_.push_back(std::move(r));
  }

  void write(std::ostream& os) {
    std::stable_sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) { return a.t < b.t; });
    trace::CommandTraceWriter w(os);
    for (const Row& r : rows_) std::visit([&](const auto& rec) { w.write(rec); }, r.rec);
    // All at the window's end, after every row inside it; by queue, then cid.
    std::sort(inflight_.begin(), inflight_.end(),
              [](const auto& a, const auto& b) { return std::tie(a.queue, a.cid) < std::tie(b.queue, b.cid); });
    for (const auto& r : inflight_) w.write(r);
  }

 private:
  struct Row {
    Time t;
    std::size_t order;
    std::variant<trace::CommandRecord, trace::IrqRecord, trace::ModeRecord> rec;
  };
  Time from_, to_;
  std::size_t max_;
  uint64_t dropped_ = 0;
  std::vector<Row> rows_;
  std::vector<trace::InflightRecord> inflight_;
};

}  // namespace nvmesim
