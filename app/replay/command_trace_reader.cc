#include "app/replay/command_trace_reader.h"

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <variant>

#include "app/replay/csv_record.h"

namespace nvmesim::replay {
namespace {

// The columns the replay needs, by name, and their index in kNeeded.
constexpr std::array<std::string_view, 10> kNeeded = {
    "kind", "t_ns", "queue", "cid", "op", "blocks", "submit_ns", "doorbell_ns", "cqe_posted_ns", "cqe_seen_ns"};
enum { kKind, kT, kQueue, kCid, kOp, kBlocks, kSubmit, kDoorbell, kPosted, kSeen };

// Where the header puts each column; an optional column it lacks is at fields.size().
struct Columns {
  std::array<std::size_t, kNeeded.size()> needed{};
  std::size_t count = 0;  // fields per row
  // Optional (traces written before it have none; hw traces leave it empty).
  std::size_t unit_done = 0;
  // Columns the replay does not use, checked all the same: a row that is wrong in one is
  // not a row of this format (a shifted column, a file of another kind).
  std::size_t lba = 0, status = 0, irq = 0, completed_by = 0;
};

std::variant<Columns, InputError> read_header(const CsvRecord& header, const ReplayTarget& target) {
  Columns c;
  c.count = header.fields.size();
  // A name given twice: its values were read from the first column and the other ignored.
  std::map<std::string_view, std::size_t> first;
  for (std::size_t i = 0; i < header.fields.size(); ++i) {
    const std::string& name = header.fields[i];
    if (name.empty()) continue;
    auto [at, fresh] = first.emplace(name, i);
    if (!fresh)
      return target.at(1, name, "named twice in the header (fields " + std::to_string(at->second + 1) + " and " +
                                    std::to_string(i + 1) + "): the replay would read the first and ignore the other");
  }
  for (std::size_t k = 0; k < kNeeded.size(); ++k) {
    auto it = std::find(header.fields.begin(), header.fields.end(), kNeeded[k]);
    if (it == header.fields.end()) return target.at(1, "missing column '" + std::string(kNeeded[k]) + "' in the header");
    c.needed[k] = static_cast<std::size_t>(it - header.fields.begin());
  }
  auto optional_col = [&](std::string_view name) {
    return static_cast<std::size_t>(std::find(header.fields.begin(), header.fields.end(), name) - header.fields.begin());
  };
  c.unit_done = optional_col("unit_done_ns");
  c.lba = optional_col("lba");
  c.status = optional_col("status");
  c.irq = optional_col("irq_ns");
  c.completed_by = optional_col("completed_by");
  return c;
}

// One row's fields read as numbers, each refusal naming the row's line and the column.
class Row {
 public:
  Row(const CsvRecord& rec, const Columns& cols, const ReplayTarget& target) : rec_(rec), cols_(cols), target_(target) {}

  uint32_t line() const { return rec_.line; }
  const std::string& field(int k) const { return rec_.fields[cols_.needed[k]]; }
  InputError at(std::string_view column, const std::string& msg) const { return target_.at(rec_.line, column, msg); }

  // A needed column's integer in [lo, hi], or nothing when the field is empty.
  std::optional<InputError> number(int k, int64_t lo, int64_t hi, std::optional<int64_t>& out) const {
    out.reset();
    if (field(k).empty()) return std::nullopt;
    auto v = parse_int(field(k));
    if (!v || *v < lo || *v > hi)
      return at(kNeeded[k],
                "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got '" + field(k) + "'");
    out = v;
    return std::nullopt;
  }
  // The same, and the field may not be empty.
  std::optional<InputError> required(int k, int64_t lo, int64_t hi, int64_t& out) const {
    std::optional<int64_t> v;
    if (auto e = number(k, lo, hi, v)) return e;
    if (!v) return at(kNeeded[k], "empty");
    out = *v;
    return std::nullopt;
  }
  // An optional column at index c: empty, absent, or an integer in [0, hi].
  std::optional<InputError> optional_number(std::size_t c, std::string_view name, int64_t hi,
                                            std::optional<int64_t>* out = nullptr) const {
    const auto& f = rec_.fields;
    if (c >= f.size() || f[c].empty()) return std::nullopt;
    auto v = parse_int(f[c]);
    if (!v || *v < 0 || *v > hi)
      return at(name, "expected an integer from 0 to " + std::to_string(hi) + ", got '" + f[c] + "'");
    if (out) *out = v;
    return std::nullopt;
  }
  // An optional column's text, empty when the header has no such column.
  std::string_view optional_text(std::size_t c) const {
    return c < rec_.fields.size() ? std::string_view(rec_.fields[c]) : std::string_view();
  }

 private:
  const CsvRecord& rec_;
  const Columns& cols_;
  const ReplayTarget& target_;
};

// What a cmd or inflight row records. An inflight row was submitted in the window and not
// seen in it: no cqe_seen; its doorbell and posting when the window saw them.
struct RowValues {
  int64_t t = 0;
  bool inflight = false;
  int64_t queue = 0, cid = 0, blocks = 0, submit = 0, doorbell = 0, seen = 0;
  std::optional<int64_t> posted, inflight_doorbell, unit_done;
};

std::optional<InputError> check_unused_columns(const Row& row, const Columns& cols) {
  if (auto e = row.optional_number(cols.lba, "lba", INT64_MAX)) return e;
  if (auto e = row.optional_number(cols.status, "status", 65535)) return e;
  if (auto e = row.optional_number(cols.irq, "irq_ns", kMaxTimeNs)) return e;
  const std::string_view by = row.optional_text(cols.completed_by);
  if (!by.empty() && by != "irq" && by != "thread" && by != "timer" && by != "app")
    return row.at("completed_by", "expected irq, thread, timer or app, got '" + std::string(by) + "'");
  return std::nullopt;
}

std::optional<InputError> read_values(const Row& row, const Columns& cols, int64_t max_blocks, RowValues& v) {
  if (auto e = row.required(kQueue, 1, 65535, v.queue)) return e;
  if (auto e = row.required(kCid, 0, UINT32_MAX, v.cid)) return e;
  if (auto e = row.required(kBlocks, 1, max_blocks, v.blocks)) return e;
  if (auto e = row.required(kSubmit, 0, kMaxTimeNs, v.submit)) return e;
  if (v.inflight) {
    if (auto e = row.number(kDoorbell, 0, kMaxTimeNs, v.inflight_doorbell)) return e;
    v.doorbell = v.inflight_doorbell.value_or(v.submit);
  } else if (auto e = row.required(kDoorbell, 0, kMaxTimeNs, v.doorbell)) {
    return e;
  }
  if (auto e = row.number(kPosted, 0, kMaxTimeNs, v.posted)) return e;
  if (v.inflight && v.posted && !v.inflight_doorbell) return row.at("cqe_posted_ns", "given without doorbell_ns");
  if (v.inflight && !row.field(kSeen).empty()) return row.at("cqe_seen_ns", "not empty on an inflight row");
  if (!v.inflight)
    if (auto e = row.required(kSeen, 0, kMaxTimeNs, v.seen)) return e;
  return row.optional_number(cols.unit_done, "unit_done_ns", kMaxTimeNs, &v.unit_done);
}

// The row's times in the order a command lives them.
std::optional<InputError> check_order(const Row& row, const RowValues& v) {
  const auto& posted = v.posted;
  const auto& unit_done = v.unit_done;
  if (v.doorbell < v.submit) return row.at("doorbell_ns", "before submit_ns");
  if (posted && *posted < v.doorbell) return row.at("cqe_posted_ns", "before doorbell_ns");
  if (!v.inflight && v.seen < (posted ? *posted : v.doorbell))
    return row.at("cqe_seen_ns", posted ? "before cqe_posted_ns" : "before doorbell_ns");
  // An inflight row is written when the window closes, at t_ns: after what it records.
  if (v.inflight && v.t < (posted ? *posted : v.doorbell))
    return row.at("t_ns", posted ? "before cqe_posted_ns on an inflight row" : "before doorbell_ns on an inflight row");
  // An inflight row may give the unit's end without a posting (the unit finished, its
  // CQE was not posted when the window closed), with its doorbell, before t_ns.
  if (unit_done && !posted && !(v.inflight && v.inflight_doorbell))
    return row.at("unit_done_ns", v.inflight ? "given without doorbell_ns" : "given without cqe_posted_ns");
  if (unit_done && *unit_done < v.doorbell) return row.at("unit_done_ns", "before doorbell_ns");
  if (unit_done && posted && *unit_done > *posted) return row.at("unit_done_ns", "after cqe_posted_ns");
  if (unit_done && !posted && *unit_done > v.t) return row.at("unit_done_ns", "after t_ns on an inflight row");
  return std::nullopt;
}

ReplayCommand command_of(const RowValues& v, bool write, uint32_t line, ReplayTarget& target) {
  const ReplayLoadOptions& o = target.options();
  const auto& posted = v.posted;
  ReplayCommand c;
  c.line = line;
  c.cid = static_cast<uint32_t>(v.cid);
  c.bytes = static_cast<uint32_t>(v.blocks) * o.block_bytes;
  c.write = write;
  c.submit = Time::from_ns(v.submit);
  c.inflight = v.inflight;
  if (!v.inflight || v.inflight_doorbell) c.doorbell = Time::from_ns(v.doorbell);
  if (posted) c.posted = Time::from_ns(*posted);
  if (!v.inflight) c.seen = Time::from_ns(v.seen);
  if (o.service && v.inflight && !posted) {
    // Not posted when the window closed (t_ns): the device model serves it, not before.
    c.post_not_before = Time::from_ns(v.t);
    if (v.unit_done) c.unit_done_unposted = Time::from_ns(*v.unit_done);
  } else if (o.service) {
    // Simulator traces: doorbell to CQE posting. hw traces have no posting time: doorbell
    // to CQE seen, an upper bound that includes the host's delay in finding the CQE.
    c.device_time = (posted ? *posted : v.seen) >= v.doorbell ? Time::from_ns(posted ? *posted : v.seen) - c.doorbell
                                                              : Duration::zero();
    target.note_service_source(posted ? "doorbell_to_cqe_posted" : "doorbell_to_cqe_seen");
    if (v.unit_done) c.known_ahead = Duration::ns(*posted - *v.unit_done);
  }
  return c;
}

}  // namespace

std::optional<InputError> read_command_trace(std::string_view text, ReplayTarget& target, uint32_t& line_count) {
  const ReplayLoadOptions& o = target.options();
  std::size_t pos = 0;
  uint32_t line = 1;
  CsvRecord header = *next_record(text, pos, line);
  auto header_read = read_header(header, target);
  if (auto* e = std::get_if<InputError>(&header_read)) return *e;
  const Columns& cols = std::get<Columns>(header_read);
  const std::optional<uint32_t> drive_by_name = target.named_drive();
  if (!o.drive.empty() && !drive_by_name) return InputError{"--replay-drive", "no drive named '" + o.drive + "' in the scenario"};
  int64_t last_t = -1;
  uint32_t last_line = 1;
  while (auto rec = next_record(text, pos, line)) {
    last_line = rec->line;
    if (rec->fields.size() == 1 && rec->fields[0].empty()) continue;  // blank line (the file's end)
    if (rec->fields.size() != cols.count)
      return target.at(rec->line, "expected " + std::to_string(cols.count) + " fields, got " +
                                      std::to_string(rec->fields.size()));
    const Row row(*rec, cols, target);
    RowValues v;
    if (auto e = row.required(kT, 0, kMaxTimeNs, v.t)) return e;
    if (v.t < last_t)
      return row.at("t_ns", "time goes backwards: " + std::to_string(v.t) + " after " + std::to_string(last_t));
    last_t = v.t;
    // irq, irq_held, mode rows: the simulation makes its own.
    const std::string& kind = row.field(kKind);
    v.inflight = kind == "inflight";
    if (kind != "cmd" && !v.inflight) {
      if (kind == "irq" || kind == "irq_held" || kind == "mode") continue;
      return row.at("kind", "expected cmd, inflight, irq, irq_held or mode, got '" + kind + "'");
    }
    if (auto e = check_unused_columns(row, cols)) return e;
    if (auto e = read_values(row, cols, (int64_t{1} << 31) / o.block_bytes, v)) return e;
    const std::string& op = row.field(kOp);
    if (op != "read" && op != "write") {
      if (op == "flush") {  // no flush in the device model
        ++target.trace().skipped;
        continue;
      }
      return row.at("op", "expected read, write or flush, got '" + op + "'");
    }
    if (auto e = check_order(row, v)) return e;
    ReplayCommand c = command_of(v, op == "write", rec->line, target);
    if (auto e = target.place(c, static_cast<uint32_t>(v.queue), v.posted.has_value() || v.inflight, drive_by_name))
      return e;
    if (auto e = target.add(c, rec->line)) return e;
  }
  line_count = last_line;
  return std::nullopt;
}

}  // namespace nvmesim::replay
