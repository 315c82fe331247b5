#include "app/replay/replay_target.h"

#include <algorithm>

namespace nvmesim::replay {

ReplayTarget::ReplayTarget(const ReplayLoadOptions& o, const Scenario& sc) : o_(o), sc_(sc), topo_(Topology::of(sc)) {
  // The request pool is dealt out clone by clone, iodepth each (models/workload/job_model.cc):
  // a simulator trace's cid names the clone that submitted it.
  uint64_t first = 0;
  for (const auto& jc : topo_.jobs()) {
    pool_first_.push_back(first);
    first += sc_.jobs[jc.spec].iodepth;
  }
  pool_end_ = first;
  trace_.path = o_.path;
  trace_.service = o_.service;
}

InputError ReplayTarget::at(uint32_t line, const std::string& msg) const {
  return {o_.path + ":" + std::to_string(line), msg};
}

InputError ReplayTarget::at(uint32_t line, std::string_view column, const std::string& msg) const {
  return at(line, "column " + std::string(column) + ": " + msg);
}

std::optional<uint32_t> ReplayTarget::named_drive() const {
  if (o_.drive.empty()) return sc_.drives.size() == 1 ? std::optional<uint32_t>(0) : std::nullopt;
  for (uint32_t d = 0; d < sc_.drives.size(); ++d)
    if (sc_.drives[d].name == o_.drive) return d;
  return std::nullopt;
}

void ReplayTarget::note_service_source(const char* s) {
  if (trace_.service_source.empty()) trace_.service_source = s;
  else if (trace_.service_source != s) trace_.service_source = "mixed";
}

std::optional<InputError> ReplayTarget::add(const ReplayCommand& c, uint32_t line) {
  if (trace_.commands.size() >= limits::kMaxReplayCommands)
    return at(line, "more than " + std::to_string(limits::kMaxReplayCommands) + " commands (the replay's cap)");
  trace_.commands.push_back(c);
  return std::nullopt;
}

std::optional<InputError> ReplayTarget::place(ReplayCommand& c, uint32_t queue, bool simulator_row,
                                              std::optional<uint32_t> drive_by_name) const {
  // The simulator's cid is the request's index in the pool: it names the clone that
  // submitted the command, and so the drive, the one of the clone's drives whose queue
  // has this id (its trace has no drive column).
  uint32_t most = 0;
  for (uint32_t d = 0; d < sc_.drives.size(); ++d)
    most = std::max(most, static_cast<uint32_t>(topo_.drive_queues(d).size()));
  if (queue > most)
    return at(c.line, "queue", "queue " + std::to_string(queue) + " does not exist in the scenario (its drives have " +
                                   std::to_string(most) + " I/O queues at most)");
  std::optional<uint32_t> owner;
  if (simulator_row && c.cid < pool_end_)
    owner = static_cast<uint32_t>(std::upper_bound(pool_first_.begin(), pool_first_.end(), c.cid) -
                                  pool_first_.begin() - 1);
  std::optional<uint32_t> drive = drive_by_name;
  if (!drive && simulator_row) {
    if (!owner)
      return at(c.line, "cid", "cid " + std::to_string(c.cid) + " is outside this scenario's request pool (" +
                                   std::to_string(pool_end_) + " requests): not a trace of this scenario");
    for (uint32_t gq : topo_.jobs()[*owner].queues) {
      if (topo_.queue(gq).qid + 1 != queue) continue;
      if (drive) return at(c.line, "queue", "ambiguous: the job clone of cid " + std::to_string(c.cid) +
                                                " has queue " + std::to_string(queue) + " on several drives");
      drive = topo_.queue(gq).drive;
    }
    if (!drive)
      return at(c.line, "queue", "queue " + std::to_string(queue) + " is not one the job clone of cid " +
                                     std::to_string(c.cid) + " submits to in this scenario");
  }
  if (!drive)
    return at(c.line, "queue", "the trace names no drive and the scenario has " + std::to_string(sc_.drives.size()) +
                                   " drives: choose one with --replay-drive NAME");
  const auto& dq = topo_.drive_queues(*drive);
  if (queue > dq.size())
    return at(c.line, "queue", "queue " + std::to_string(queue) + " of " + sc_.drives[*drive].name +
                                   " does not exist in the scenario (it has " + std::to_string(dq.size()) +
                                   " I/O queues)");
  c.queue = dq[queue - 1];
  auto submits_here = [&](uint32_t k) {
    const auto& qs = topo_.jobs()[k].queues;
    return std::find(qs.begin(), qs.end(), c.queue) != qs.end();
  };
  // The owning clone if it uses this queue, else the first clone (in the scenario's
  // order) that does.
  std::optional<uint32_t> job;
  if (owner && submits_here(*owner)) job = owner;
  for (uint32_t k = 0; k < topo_.jobs().size() && !job; ++k)
    if (submits_here(k)) job = k;
  if (!job)
    return at(c.line, "queue", "no job of the scenario submits to queue " + std::to_string(queue) + " of " +
                                   sc_.drives[*drive].name + " (no job runs on core " +
                                   std::to_string(topo_.queue(c.queue).core) + ")");
  c.job = *job;
  return std::nullopt;
}

}  // namespace nvmesim::replay
