#include "sim/trace.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace nvmesim::sim {

void TraceRecorder::name_process(uint32_t pid, const std::string& name) { process_names_.emplace_back(pid, name); }

void TraceRecorder::name_track(uint32_t pid, uint32_t tid, const std::string& name) {
  track_names_.push_back({{pid, tid}, name});
}

uint32_t TraceRecorder::intern(const std::string& s) {
  auto [it, inserted] = ids_.try_emplace(s, static_cast<uint32_t>(names_.size()));
  if (inserted) names_.push_back(s);
  return it->second;
}

bool TraceRecorder::push(const Event& e) {
  if (full()) {
    ++dropped_;
    return false;
  }
  events_.push_back(e);
  return true;
}

void TraceRecorder::slice(uint32_t pid, uint32_t tid, Time start, Time end, const std::string& name,
                          const char* category) {
  if (end <= from_ || start >= to_) return;
  if (full()) {
    ++dropped_;
    return;
  }
  start = max(start, from_);
  end = min(end, to_);
  push({'X', pid, tid, start.ns(), (end - start).count_ns(), intern(name), category, 0});
}

void TraceRecorder::counter(uint32_t pid, const std::string& name, Time t, const char* key, int64_t value) {
  if (t < from_ || t >= to_) return;
  if (full()) {
    ++dropped_;
    return;
  }
  push({'C', pid, 0, t.ns(), 0, intern(name), key, value});
}

void TraceRecorder::write(std::ostream& os) const {
  using nlohmann::json;
  // Timestamps in microseconds with ns precision, as the format wants.
  auto us = [](int64_t ns) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
    return std::string(buf);
  };
  os << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"dropped_events\":" << dropped_ << "},\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    if (!first) os << ",\n";
    first = false;
  };
  for (const auto& [pid, name] : process_names_) {
    sep();
    os << json{{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", name}}}}.dump();
    sep();
    os << json{{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", pid}}}}.dump();
  }
  for (const auto& [ids, name] : track_names_) {
    sep();
    os << json{{"ph", "M"}, {"name", "thread_name"}, {"pid", ids.first}, {"tid", ids.second}, {"args", {{"name", name}}}}.dump();
    sep();
    os << json{{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", ids.first}, {"tid", ids.second},
               {"args", {{"sort_index", ids.second}}}}.dump();
  }
  for (const Event& e : events_) {
    sep();
    std::string name = json(names_[e.name]).dump();
    if (e.ph == 'X') {
      os << "{\"ph\":\"X\",\"pid\":" << e.pid << ",\"tid\":" << e.tid << ",\"ts\":" << us(e.ts)
         << ",\"dur\":" << us(e.dur) << ",\"name\":" << name << ",\"cat\":\"" << e.cat_or_key << "\"}";
    } else {
      os << "{\"ph\":\"C\",\"pid\":" << e.pid << ",\"ts\":" << us(e.ts) << ",\"name\":" << name << ",\"args\":{\""
         << e.cat_or_key << "\":" << e.value << "}}";
    }
  }
  os << "\n]}\n";
}

}  // namespace nvmesim::sim
