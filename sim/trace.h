// A bounded recorder of Chrome/Perfetto trace events (the JSON "traceEvents" format that
// ui.perfetto.dev opens): slices on tracks, and counters. Only events inside the time
// window are kept, and at most `max_events` of them (the rest are counted), so a long run
// never writes gigabytes. Times stay integer ns until written.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "vocab/time.h"

namespace nvmesim::sim {

class TraceRecorder {
 public:
  TraceRecorder(Time from, Time to, std::size_t max_events = 4'000'000)
      : from_(from), to_(to), max_events_(max_events) {}

  // A process groups tracks in the UI; a track is a thread of it.
  void name_process(uint32_t pid, const std::string& name);
  void name_track(uint32_t pid, uint32_t tid, const std::string& name);

  // A slice [start, end) on a track, clipped to the window.
  void slice(uint32_t pid, uint32_t tid, Time start, Time end, const std::string& name, const char* category);
  // A counter value at time t (one series per pid + name).
  void counter(uint32_t pid, const std::string& name, Time t, const char* key, int64_t value);

  bool wants(Time start, Time end) const { return end > from_ && start < to_ && !full(); }
  bool wants(Time t) const { return t >= from_ && t < to_ && !full(); }
  uint64_t dropped() const { return dropped_; }

  void write(std::ostream& os) const;

 private:
  struct Event {
    char ph;
    uint32_t pid, tid;
    int64_t ts, dur;
    uint32_t name;  // interned
    const char* cat_or_key;
    int64_t value;
  };
  bool full() const { return events_.size() >= max_events_; }
  uint32_t intern(const std::string& s);
  bool push(const Event& e);

  Time from_, to_;
  std::size_t max_events_;
  uint64_t dropped_ = 0;
  std::vector<Event> events_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, std::string>> track_names_;
  std::vector<std::pair<uint32_t, std::string>> process_names_;
};

}  // namespace nvmesim::sim
