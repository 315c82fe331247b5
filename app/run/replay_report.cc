#include "app/run/replay_report.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace nvmesim {
using nlohmann::json;

namespace {

bool known(Time t) { return t != Time::never(); }

// Nearest-rank percentile of sorted values.
int64_t percentile(const std::vector<int64_t>& sorted, double p) {
  auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

// The trace's span (its first to last recorded time) and the I/O rates inside the part of
// it that the measured window covers: completions whose CQE was seen there, replayed and
// as recorded. Outside the span the replay has no commands, so a rate over the whole
// window would count idle time the recording did not have.
json span_summary(const ReplayTrace& trace, const System& sys) {
  Time first = Time::never(), last = Time::zero();
  for (const ReplayCommand& c : trace.commands) {
    first = min(first, c.submit);
    for (Time t : {c.submit, c.doorbell, c.posted, c.seen})
      if (known(t)) last = max(last, t);
    if (c.inflight) last = max(last, c.post_not_before);  // the row's t_ns: the recording's end
  }
  const Time window_from = Time::zero() + sys.scenario().warmup;
  const Time window_to = window_from + sys.window();
  json j;
  if (!known(first)) return j;  // no commands
  j["from_ns"] = first.ns();
  j["to_ns"] = last.ns();
  const Time from = max(first, window_from), to = min(last, window_to);
  j["measured_from_ns"] = from.ns();
  j["measured_to_ns"] = to.ns();
  // Past the span's end by more than the tail the replay adds to finish its last commands.
  const bool past = window_from < first || window_to > last + kReplayTail;
  j["window_extends_past_span"] = past;
  j["warning"] = past ? json("the measured window (" + std::to_string(window_from.ns()) + " to " +
                             std::to_string(window_to.ns()) + " ns) extends past the trace's span (" +
                             std::to_string(first.ns()) + " to " + std::to_string(last.ns()) +
                             " ns, plus the replay's " + std::to_string(kReplayTail.count_ns() / 1000000) +
                             " ms to finish its last commands): the results' rates are over the whole window, "
                             "replay.span's over the span")
                      : json(nullptr);
  if (to <= from) {
    j["ios"] = nullptr;
    j["iops"] = nullptr;
    j["recorded_ios"] = nullptr;
    j["recorded_iops"] = nullptr;
    return j;
  }
  const auto& sim = sys.replayed();
  uint64_t ios = 0, recorded = 0;
  bool any_recorded = false;
  auto inside = [&](Time t) { return known(t) && t >= from && t < to; };
  for (std::size_t i = 0; i < trace.commands.size(); ++i) {
    const ReplayCommand& c = trace.commands[i];
    if (inside(sim[i].seen) && known(sim[i].reaped)) ++ios;
    if (known(c.seen)) any_recorded = true;
    if (inside(c.seen)) ++recorded;
  }
  const double secs = static_cast<double>((to - from).count_ns()) / 1e9;
  j["ios"] = ios;
  j["iops"] = static_cast<double>(ios) / secs;
  j["recorded_ios"] = any_recorded ? json(recorded) : json(nullptr);  // an iolog records no completion
  j["recorded_iops"] = any_recorded ? json(static_cast<double>(recorded) / secs) : json(nullptr);
  return j;
}

}  // namespace

json replay_summary(const ReplayTrace& trace, const System& sys) {
  const auto& sim = sys.replayed();
  uint64_t matched = 0, identical = 0, in_flight_at_start = 0, submitted_late = 0, inflight = 0;
  std::vector<int64_t> seen_diff;
  Time first_submit = Time::never(), first_seen = Time::never();
  Time rec_last = Time::zero(), sim_last = Time::zero();
  for (const ReplayCommand& c : trace.commands) {
    first_submit = min(first_submit, c.submit);
    first_seen = min(first_seen, c.seen);
  }
  for (std::size_t i = 0; i < trace.commands.size(); ++i) {
    const ReplayCommand& c = trace.commands[i];
    const ReplayedTimes& s = sim[i];
    if (c.inflight) {  // replayed, not compared: the trace has no CQE seen for it
      ++inflight;
      continue;
    }
    if (known(first_seen) && c.submit < first_seen) ++in_flight_at_start;
    if (!known(s.reaped)) continue;
    ++matched;
    if (s.submit > c.submit) ++submitted_late;  // its clone was busy when it arrived
    if (!known(c.seen)) continue;  // an iolog records no completion
    seen_diff.push_back(std::llabs((s.seen - c.seen).count_ns()));
    rec_last = max(rec_last, c.seen);
    sim_last = max(sim_last, s.seen);
    if (s.submit == c.submit && s.doorbell == c.doorbell && s.seen == c.seen && (!known(c.posted) || s.posted == c.posted))
      ++identical;
  }
  json j;
  j["file"] = trace.path;
  j["format"] = trace.format;
  j["service_from_trace"] = trace.service;
  j["service_source"] = !trace.service ? json(nullptr) : json(trace.service_source);
  j["commands"] = trace.commands.size();
  j["skipped"] = trace.skipped;
  j["matched"] = matched;
  j["unmatched"] = trace.commands.size() - inflight - matched;
  j["inflight"] = inflight;
  j["identical"] = seen_diff.empty() ? json(nullptr) : json(identical);
  j["in_flight_at_start"] = in_flight_at_start;
  j["span"] = span_summary(trace, sys);
  j["submitted_late"] = submitted_late;
  if (seen_diff.empty()) {
    j["cqe_seen_abs_diff_ns"] = nullptr;
    j["drift"] = nullptr;
    j["replay_length_ns"] = nullptr;
  } else {
    std::sort(seen_diff.begin(), seen_diff.end());
    double sum = 0;
    for (int64_t d : seen_diff) sum += static_cast<double>(d);
    j["cqe_seen_abs_diff_ns"] = {{"mean", sum / static_cast<double>(seen_diff.size())},
                                 {"p50", percentile(seen_diff, 0.50)},
                                 {"p99", percentile(seen_diff, 0.99)},
                                 {"max", seen_diff.back()}};
    const Duration length = rec_last - first_submit;
    j["replay_length_ns"] = length.count_ns();
    j["drift"] = length > Duration::zero()
                     ? json(static_cast<double>((sim_last - rec_last).count_ns()) / static_cast<double>(length.count_ns()))
                     : json(nullptr);
  }
  return j;
}

void write_replay_diff(std::ostream& os, const ReplayTrace& trace, const System& sys) {
  const auto& sim = sys.replayed();
  os << "line,drive,queue,cid,op,bytes,submit_rec,submit_sim,submit_diff,doorbell_rec,doorbell_sim,doorbell_diff,"
        "cqe_posted_rec,cqe_posted_sim,cqe_posted_diff,cqe_seen_rec,cqe_seen_sim,cqe_seen_diff,reaped_sim\n";
  // Empty where a side has no value: recorded times an iolog or hw trace lacks, simulated
  // times of a command the run did not reap (unmatched).
  auto put = [&](Time rec, Time s) {
    if (known(rec)) os << rec.ns();
    os << ',';
    if (known(s)) os << s.ns();
    os << ',';
    if (known(rec) && known(s)) os << (s - rec).count_ns();
    os << ',';
  };
  for (std::size_t i = 0; i < trace.commands.size(); ++i) {
    const ReplayCommand& c = trace.commands[i];
    ReplayedTimes s = sim[i];
    if (!known(s.reaped)) s = ReplayedTimes{};
    const HostQueue& q = *sys.queues()[c.queue];
    os << c.line << ',' << sys.scenario().drives[q.drive].name << ',' << q.qid + 1 << ',' << c.cid << ','
       << (c.write ? "write" : "read") << ',' << c.bytes << ',';
    put(c.submit, s.submit);
    put(c.doorbell, s.doorbell);
    put(c.posted, s.posted);
    put(c.seen, s.seen);
    if (known(s.reaped)) os << s.reaped.ns();
    os << '\n';
  }
}

}  // namespace nvmesim
