#include "app/replay/replay_load.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

#include "app/input/input_file.h"
#include "app/input/input_limits.h"
#include "models/host/topology.h"

namespace nvmesim {
namespace {

using Result = std::variant<ReplayTrace, InputError>;

// One CSV record with the line it starts on (a quoted field may span lines).
struct CsvRecord {
  uint32_t line = 0;
  std::vector<std::string> fields;
};

// RFC 4180: fields separated by commas, quoted fields may hold commas, doubled quotes
// and newlines; CRLF or LF ends a record. Reads one record from `pos` on.
std::optional<CsvRecord> next_record(std::string_view text, std::size_t& pos, uint32_t& line) {
  if (pos >= text.size()) return std::nullopt;
  CsvRecord r;
  r.line = line;
  std::string field;
  bool quoted = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (quoted) {
      if (c == '"') {
        if (pos + 1 < text.size() && text[pos + 1] == '"') {
          field += '"';
          ++pos;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      r.fields.push_back(std::move(field));
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n') ++pos;
      ++pos;
      ++line;
      break;
    } else {
      field += c;
    }
  }
  r.fields.push_back(std::move(field));
  return r;
}

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// Times within the longest run the simulator accepts (warm-up plus window).
constexpr int64_t kMaxTimeNs = 2 * limits::kMaxRunDuration.count_ns();

class Loader {
 public:
  Loader(const ReplayLoadOptions& o, const Scenario& sc) : o_(o), sc_(sc), topo_(Topology::of(sc)) {
    // The request pool is dealt out clone by clone, iodepth each (models/job_model.cc):
    // a simulator trace's cid names the clone that submitted it.
    uint64_t first = 0;
    for (const auto& jc : topo_.jobs()) {
      pool_first_.push_back(first);
      first += sc_.jobs[jc.spec].iodepth;
    }
    pool_end_ = first;
  }

  Result load(const std::string& text) {
    trace_.path = o_.path;
    trace_.service = o_.service;
    if (text.empty()) return at(1, "empty file: expected a command-trace CSV header or \"fio version 3 iolog\"");
    std::string_view first_line = std::string_view(text).substr(0, text.find('\n'));
    if (!first_line.empty() && first_line.back() == '\r') first_line.remove_suffix(1);
    std::optional<InputError> e;
    if (first_line.rfind("fio version 3 iolog", 0) == 0) {
      trace_.format = "fio-iolog-v3";
      e = iolog(text);
    } else if (first_line.rfind("fio version 2 iolog", 0) == 0) {
      return at(1, "fio iolog version 2 has no timestamps; write it with fio 3.30 or later (version 3)");
    } else if (first_line.rfind("kind,", 0) == 0) {
      trace_.format = "command-trace";
      e = command_trace(text);
    } else {
      return at(1, "unknown format: expected the command-trace CSV header (kind,t_ns,...) or \"fio version 3 iolog\"");
    }
    if (e) return *e;
    if (trace_.commands.empty()) return at(line_count_, "no commands to replay in the file");
    std::stable_sort(trace_.commands.begin(), trace_.commands.end(),
                     [](const ReplayCommand& a, const ReplayCommand& b) { return a.submit < b.submit; });
    if (auto ce = check_cids()) return *ce;
    return std::move(trace_);
  }

 private:
  InputError at(uint32_t line, const std::string& msg) const {
    return {o_.path + ":" + std::to_string(line), msg};
  }
  InputError at(uint32_t line, std::string_view column, const std::string& msg) const {
    return at(line, "column " + std::string(column) + ": " + msg);
  }

  // The drive a trace row without a drive of its own maps to: the only drive, or --replay-drive.
  std::optional<uint32_t> named_drive() const {
    if (o_.drive.empty()) return sc_.drives.size() == 1 ? std::optional<uint32_t>(0) : std::nullopt;
    for (uint32_t d = 0; d < sc_.drives.size(); ++d)
      if (sc_.drives[d].name == o_.drive) return d;
    return std::nullopt;
  }

  // ---- the command-trace CSV ------------------------------------------------------------

  std::optional<InputError> command_trace(const std::string& text) {
    std::size_t pos = 0;
    uint32_t line = 1;
    CsvRecord header = *next_record(text, pos, line);
    static constexpr std::array<std::string_view, 10> kNeeded = {
        "kind", "t_ns", "queue", "cid", "op", "blocks", "submit_ns", "doorbell_ns", "cqe_posted_ns", "cqe_seen_ns"};
    std::array<std::size_t, kNeeded.size()> col{};
    for (std::size_t k = 0; k < kNeeded.size(); ++k) {
      auto it = std::find(header.fields.begin(), header.fields.end(), kNeeded[k]);
      if (it == header.fields.end()) return at(1, "missing column '" + std::string(kNeeded[k]) + "' in the header");
      col[k] = static_cast<std::size_t>(it - header.fields.begin());
    }
    enum { kKind, kT, kQueue, kCid, kOp, kBlocks, kSubmit, kDoorbell, kPosted, kSeen };
    // Optional (traces written before it have none; hw traces leave it empty).
    auto optional_col = [&](std::string_view name) {
      return static_cast<std::size_t>(std::find(header.fields.begin(), header.fields.end(), name) - header.fields.begin());
    };
    const auto unit_done_col = optional_col("unit_done_ns");
    // Columns the replay does not use, checked all the same: a row that is wrong in one is
    // not a row of this format (a shifted column, a file of another kind).
    const std::size_t lba_col = optional_col("lba"), status_col = optional_col("status"),
                      irq_col = optional_col("irq_ns"), by_col = optional_col("completed_by");
    const std::optional<uint32_t> drive_by_name = named_drive();
    if (!o_.drive.empty() && !drive_by_name) return InputError{"--replay-drive", "no drive named '" + o_.drive + "' in the scenario"};
    int64_t last_t = -1;
    uint32_t last_line = 1;
    while (auto rec = next_record(text, pos, line)) {
      last_line = rec->line;
      if (rec->fields.size() == 1 && rec->fields[0].empty()) continue;  // blank line (the file's end)
      if (rec->fields.size() != header.fields.size())
        return at(rec->line, "expected " + std::to_string(header.fields.size()) + " fields, got " +
                                 std::to_string(rec->fields.size()));
      const auto& f = rec->fields;
      auto number = [&](int k, int64_t lo, int64_t hi, std::optional<int64_t>& out) -> std::optional<InputError> {
        out.reset();
        if (f[col[k]].empty()) return std::nullopt;
        auto v = parse_int(f[col[k]]);
        if (!v || *v < lo || *v > hi)
          return at(rec->line, kNeeded[k],
                    "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got '" +
                        f[col[k]] + "'");
        out = v;
        return std::nullopt;
      };
      auto required = [&](int k, int64_t lo, int64_t hi, int64_t& out) -> std::optional<InputError> {
        std::optional<int64_t> v;
        if (auto e = number(k, lo, hi, v)) return e;
        if (!v) return at(rec->line, kNeeded[k], "empty");
        out = *v;
        return std::nullopt;
      };
      int64_t t = 0;
      if (auto e = required(kT, 0, kMaxTimeNs, t)) return e;
      if (t < last_t)
        return at(rec->line, "t_ns", "time goes backwards: " + std::to_string(t) + " after " + std::to_string(last_t));
      last_t = t;
      // irq, irq_held, mode rows: the simulation makes its own. inflight: submitted in the
      // window, not seen in it (no cqe_seen; doorbell and posting when the window saw them).
      const std::string& kind = f[col[kKind]];
      const bool inflight = kind == "inflight";
      if (kind != "cmd" && !inflight) {
        if (kind == "irq" || kind == "irq_held" || kind == "mode") continue;
        return at(rec->line, "kind", "expected cmd, inflight, irq, irq_held or mode, got '" + kind + "'");
      }
      auto unused_number = [&](std::size_t c, std::string_view name, int64_t hi) -> std::optional<InputError> {
        if (c >= f.size() || f[c].empty()) return std::nullopt;
        auto v = parse_int(f[c]);
        if (!v || *v < 0 || *v > hi)
          return at(rec->line, name, "expected an integer from 0 to " + std::to_string(hi) + ", got '" + f[c] + "'");
        return std::nullopt;
      };
      if (auto e = unused_number(lba_col, "lba", INT64_MAX)) return e;
      if (auto e = unused_number(status_col, "status", 65535)) return e;
      if (auto e = unused_number(irq_col, "irq_ns", kMaxTimeNs)) return e;
      if (by_col < f.size() && !f[by_col].empty() && f[by_col] != "irq" && f[by_col] != "thread" &&
          f[by_col] != "timer" && f[by_col] != "app")
        return at(rec->line, "completed_by", "expected irq, thread, timer or app, got '" + f[by_col] + "'");

      int64_t queue = 0, cid = 0, blocks = 0, submit = 0, doorbell = 0, seen = 0;
      std::optional<int64_t> posted, inflight_doorbell;
      if (auto e = required(kQueue, 1, 65535, queue)) return e;
      if (auto e = required(kCid, 0, UINT32_MAX, cid)) return e;
      if (auto e = required(kBlocks, 1, (int64_t{1} << 31) / o_.block_bytes, blocks)) return e;
      if (auto e = required(kSubmit, 0, kMaxTimeNs, submit)) return e;
      if (inflight) {
        if (auto e = number(kDoorbell, 0, kMaxTimeNs, inflight_doorbell)) return e;
        doorbell = inflight_doorbell.value_or(submit);
      } else if (auto e = required(kDoorbell, 0, kMaxTimeNs, doorbell)) {
        return e;
      }
      if (auto e = number(kPosted, 0, kMaxTimeNs, posted)) return e;
      if (inflight && posted && !inflight_doorbell) return at(rec->line, "cqe_posted_ns", "given without doorbell_ns");
      if (inflight && !f[col[kSeen]].empty()) return at(rec->line, "cqe_seen_ns", "not empty on an inflight row");
      if (!inflight)
        if (auto e = required(kSeen, 0, kMaxTimeNs, seen)) return e;
      std::optional<int64_t> unit_done;
      if (unit_done_col < f.size() && !f[unit_done_col].empty()) {
        unit_done = parse_int(f[unit_done_col]);
        if (!unit_done || *unit_done < 0 || *unit_done > kMaxTimeNs)
          return at(rec->line, "unit_done_ns",
                    "expected an integer from 0 to " + std::to_string(kMaxTimeNs) + ", got '" + f[unit_done_col] + "'");
      }
      const std::string& op = f[col[kOp]];
      if (op != "read" && op != "write") {
        if (op == "flush") {  // no flush in the device model
          ++trace_.skipped;
          continue;
        }
        return at(rec->line, "op", "expected read, write or flush, got '" + op + "'");
      }
      if (doorbell < submit) return at(rec->line, "doorbell_ns", "before submit_ns");
      if (posted && *posted < doorbell) return at(rec->line, "cqe_posted_ns", "before doorbell_ns");
      if (!inflight && seen < (posted ? *posted : doorbell)) return at(rec->line, "cqe_seen_ns", posted ? "before cqe_posted_ns" : "before doorbell_ns");
      // An inflight row is written when the window closes, at t_ns: after what it records.
      if (inflight && t < (posted ? *posted : doorbell))
        return at(rec->line, "t_ns", posted ? "before cqe_posted_ns on an inflight row" : "before doorbell_ns on an inflight row");
      // An inflight row may give the unit's end without a posting (the unit finished, its
      // CQE was not posted when the window closed), with its doorbell, before t_ns.
      if (unit_done && !posted && !(inflight && inflight_doorbell))
        return at(rec->line, "unit_done_ns", inflight ? "given without doorbell_ns" : "given without cqe_posted_ns");
      if (unit_done && *unit_done < doorbell) return at(rec->line, "unit_done_ns", "before doorbell_ns");
      if (unit_done && posted && *unit_done > *posted) return at(rec->line, "unit_done_ns", "after cqe_posted_ns");
      if (unit_done && !posted && *unit_done > t) return at(rec->line, "unit_done_ns", "after t_ns on an inflight row");

      ReplayCommand c;
      c.line = rec->line;
      c.cid = static_cast<uint32_t>(cid);
      c.bytes = static_cast<uint32_t>(blocks) * o_.block_bytes;
      c.write = op == "write";
      c.submit = Time::from_ns(submit);
      c.inflight = inflight;
      if (!inflight || inflight_doorbell) c.doorbell = Time::from_ns(doorbell);
      if (posted) c.posted = Time::from_ns(*posted);
      if (!inflight) c.seen = Time::from_ns(seen);
      if (o_.service && inflight && !posted) {
        // Not posted when the window closed (t_ns): the device model serves it, not before.
        c.post_not_before = Time::from_ns(t);
        if (unit_done) c.unit_done_unposted = Time::from_ns(*unit_done);
      } else if (o_.service) {
        // Simulator traces: doorbell to CQE posting. hw traces have no posting time: doorbell
        // to CQE seen, an upper bound that includes the host's delay in finding the CQE.
        c.device_time = (posted ? *posted : seen) >= doorbell ? Time::from_ns(posted ? *posted : seen) - c.doorbell
                                                              : Duration::zero();
        note_service_source(posted ? "doorbell_to_cqe_posted" : "doorbell_to_cqe_seen");
        if (unit_done) c.known_ahead = Duration::ns(*posted - *unit_done);
      }
      if (auto e = place(c, static_cast<uint32_t>(queue), posted.has_value() || inflight, drive_by_name)) return e;
      if (trace_.commands.size() >= limits::kMaxReplayCommands)
        return at(rec->line, "more than " + std::to_string(limits::kMaxReplayCommands) + " commands (the replay's cap)");
      trace_.commands.push_back(c);
    }
    line_count_ = last_line;
    return std::nullopt;
  }

  void note_service_source(const char* s) {
    if (trace_.service_source.empty()) trace_.service_source = s;
    else if (trace_.service_source != s) trace_.service_source = "mixed";
  }

  // Resolves the command's drive, global queue and submitting clone.
  std::optional<InputError> place(ReplayCommand& c, uint32_t queue, bool simulator_row,
                                  std::optional<uint32_t> drive_by_name) {
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

  // A CID names one command in flight per queue: reusing it before the earlier command's
  // CQE was seen is a broken trace.
  std::optional<InputError> check_cids() const {
    if (trace_.format != "command-trace") return std::nullopt;
    std::vector<uint32_t> order(trace_.commands.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto& cs = trace_.commands;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return std::tie(cs[a].queue, cs[a].cid) < std::tie(cs[b].queue, cs[b].cid);
    });
    for (std::size_t i = 1; i < order.size(); ++i) {
      const ReplayCommand& p = cs[order[i - 1]];
      const ReplayCommand& c = cs[order[i]];
      if (p.queue == c.queue && p.cid == c.cid && c.submit < p.seen)
        return at(std::max(p.line, c.line), "cid",
                  "cid " + std::to_string(c.cid) + " reused while in flight (lines " + std::to_string(std::min(p.line, c.line)) +
                      " and " + std::to_string(std::max(p.line, c.line)) + " on the same queue overlap)");
    }
    return std::nullopt;
  }

  // ---- fio's iolog v3 -------------------------------------------------------------------
  // "TIME FILE add|open|close" and "TIME FILE read|write|trim|sync|datasync OFFSET LENGTH",
  // TIME in microseconds since the start of the run (fio's utime_since_now).

  std::optional<InputError> iolog(const std::string& text) {
    if (o_.service)
      return InputError{"--replay-service", "an iolog has no device times; it needs a command trace (CSV)"};
    std::vector<std::pair<std::string, uint32_t>> files;  // name -> drive
    std::vector<bool> drive_taken(sc_.drives.size(), false);
    std::size_t pos = text.find('\n');
    uint32_t line = 1;
    int64_t last_t = -1;
    uint32_t seq = 0;
    while (pos != std::string::npos && pos + 1 <= text.size()) {
      std::size_t start = pos + 1;
      pos = text.find('\n', start);
      ++line;
      std::string_view l = std::string_view(text).substr(start, pos == std::string::npos ? std::string::npos : pos - start);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      std::vector<std::string_view> tok;
      for (std::size_t i = 0; i < l.size();) {
        while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
        std::size_t j = i;
        while (j < l.size() && l[j] != ' ' && l[j] != '\t') ++j;
        if (j > i) tok.push_back(l.substr(i, j - i));
        i = j;
      }
      if (tok.empty()) continue;
      if (tok.size() != 3 && tok.size() != 5)
        return at(line, "expected TIME FILE ACTION [OFFSET LENGTH], got " + std::to_string(tok.size()) + " fields");
      auto t = parse_int(tok[0]);
      if (!t || *t < 0 || *t > kMaxTimeNs / 1000)
        return at(line, "1 (time)", "expected microseconds since the start, got '" + std::string(tok[0]) + "'");
      if (*t < last_t)
        return at(line, "1 (time)", "time goes backwards: " + std::to_string(*t) + " after " + std::to_string(last_t));
      last_t = *t;
      const std::string file(tok[1]);
      const std::string_view act = tok[2];
      auto known = std::find_if(files.begin(), files.end(), [&](const auto& f) { return f.first == file; });
      if (tok.size() == 3) {
        if (act == "add") {
          if (known != files.end()) continue;
          auto d = drive_of_file(file, drive_taken);
          if (!d) return at(line, "2 (file)", "no drive left for file '" + file + "': the scenario has " +
                                                  std::to_string(sc_.drives.size()) + " drive(s)");
          drive_taken[*d] = true;
          files.emplace_back(file, *d);
        } else if (act == "open" || act == "close") {
          if (known == files.end()) return at(line, "2 (file)", "file '" + file + "' was not added");
        } else {
          return at(line, "3 (action)", "expected add, open or close, got '" + std::string(act) + "'");
        }
        continue;
      }
      if (known == files.end()) return at(line, "2 (file)", "file '" + file + "' was not added");
      auto offset = parse_int(tok[3]);
      if (!offset || *offset < 0) return at(line, "4 (offset)", "expected a byte offset, got '" + std::string(tok[3]) + "'");
      auto len = parse_int(tok[4]);
      if (act == "trim" || act == "sync" || act == "datasync" || act == "wait") {  // no such command in the model
        ++trace_.skipped;
        continue;
      }
      if (act != "read" && act != "write")
        return at(line, "3 (action)", "expected read, write, trim, sync, datasync, add, open or close, got '" +
                                          std::string(act) + "'");
      if (!len || *len < 1 || *len > (int64_t{1} << 31))
        return at(line, "5 (length)", "expected a length from 1 to 2147483648 bytes, got '" + std::string(tok[4]) + "'");
      const uint32_t drive = known->second;
      // fio's iolog has no queue: the scenario's first job clone on this drive submits it,
      // on the queue that clone uses, as it would when running the job.
      std::optional<uint32_t> job;
      for (uint32_t k = 0; k < topo_.jobs().size() && !job; ++k) {
        const auto& jc = topo_.jobs()[k];
        for (uint32_t gq : jc.queues)
          if (topo_.queue(gq).drive == drive) {
            job = k;
            break;
          }
      }
      if (!job) return at(line, "2 (file)", "no job of the scenario targets " + sc_.drives[drive].name);
      ReplayCommand c;
      c.line = line;
      c.cid = seq++;
      c.bytes = static_cast<uint32_t>(*len);
      c.write = act == "write";
      c.submit = Time::from_ns(*t * 1000);
      c.job = *job;
      for (uint32_t gq : topo_.jobs()[*job].queues)
        if (topo_.queue(gq).drive == drive) c.queue = gq;
      if (trace_.commands.size() >= limits::kMaxReplayCommands)
        return at(line, "more than " + std::to_string(limits::kMaxReplayCommands) + " commands (the replay's cap)");
      trace_.commands.push_back(c);
    }
    line_count_ = line;
    return std::nullopt;
  }

  // A file maps to the drive whose name it contains (the longest, e.g. /dev/nvme1n1 ->
  // nvme1), else to the first drive no file has taken yet; --replay-drive maps every file.
  std::optional<uint32_t> drive_of_file(const std::string& file, const std::vector<bool>& taken) const {
    if (!o_.drive.empty()) return named_drive();
    std::optional<uint32_t> best;
    for (uint32_t d = 0; d < sc_.drives.size(); ++d) {
      const std::string& n = sc_.drives[d].name;
      if (!n.empty() && file.find(n) != std::string::npos && (!best || n.size() > sc_.drives[*best].name.size()))
        best = d;
    }
    if (best) return best;
    for (uint32_t d = 0; d < taken.size(); ++d)
      if (!taken[d]) return d;
    return std::nullopt;
  }

  const ReplayLoadOptions& o_;
  const Scenario& sc_;
  Topology topo_;
  std::vector<uint64_t> pool_first_;
  uint64_t pool_end_ = 0;
  ReplayTrace trace_;
  uint32_t line_count_ = 1;
};

}  // namespace

std::variant<ReplayTrace, InputError> parse_replay(const std::string& text, const ReplayLoadOptions& opts,
                                                   const Scenario& sc) {
  return Loader(opts, sc).load(text);
}

std::variant<ReplayTrace, InputError> load_replay(const ReplayLoadOptions& opts, const Scenario& sc) {
  auto text = read_input_file(opts.path, limits::kMaxReplayFileBytes);
  if (auto* e = std::get_if<FileError>(&text)) return InputError{"--replay", e->message};
  return parse_replay(std::get<std::string>(text), opts, sc);
}

}  // namespace nvmesim
