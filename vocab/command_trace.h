// The per-command trace: one CSV format (docs/trace-format.md) that the hw runner
// writes for a real drive and the simulator can write for the same scenario, so the
// two compare row by row. Knows nothing of either writer: records in, CSV out.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "vocab/context.h"
#include "vocab/time.h"

namespace nvmesim::trace {

enum class Op : uint8_t { read, write, flush };
// The context whose drain consumed a CQE (hard IRQ, IRQ thread, timer/softirq, or the
// submitting task polling its CQ) is the one execution-context enum of vocab/context.h.
using Context = nvmesim::Context;

constexpr std::string_view name(Op op) {
  switch (op) {
    case Op::read: return "read";
    case Op::write: return "write";
    case Op::flush: return "flush";
  }
  return "?";
}

// One command, from submission to the reaper consuming its CQE.
struct CommandRecord {
  uint32_t queue = 0;  // I/O queue id (1-based, as in NVMe)
  uint32_t cid = 0;
  Op op = Op::read;
  uint64_t lba = 0;
  uint32_t blocks = 0;
  Time submit;                      // SQE written
  Time doorbell;                    // SQ tail doorbell written covering this SQE
  std::optional<Time> cqe_posted;   // CQE in host memory: known to a simulator, not to hw
  Time cqe_seen;                    // the reaper found it (phase tag matched)
  std::optional<Time> irq;          // start of the hard IRQ whose handler (or thread) consumed it
  Context completed_by = Context::hardirq;
  uint16_t status = 0;              // NVMe status field (SCT << 8 | SC), 0 = success
  // The device's unit finished (a simulator's only): the posting is decided from then on,
  // so a reaper already running finds the CQE at cqe_posted without an interrupt. Needed
  // to replay a read whose data waited for the shared link (cqe_posted - unit_done varies).
  std::optional<Time> unit_done;
};

// A command submitted inside the trace's window whose CQE was not seen in it, written when
// the window closes (at = its end) so a replay has every command the seen ones depended on.
// Times the window had not reached yet (doorbell not rung, CQE not posted) are empty.
struct InflightRecord {
  uint32_t queue = 0;
  uint32_t cid = 0;
  Op op = Op::read;
  uint64_t lba = 0;
  uint32_t blocks = 0;
  Time at;
  Time submit;
  std::optional<Time> doorbell, cqe_posted, unit_done;
};

// One hard interrupt on a queue's vector. held: it arrived while the vector was
// disabled (lazy mask) and was held for replay instead of running the handler.
struct IrqRecord {
  uint32_t queue = 0;
  Time at;
  uint32_t cqes = 0;  // consumed by this handler run
  bool held = false;
};

// A policy mode change on a queue (queue 0: the whole drive).
struct ModeRecord {
  uint32_t queue = 0;
  Time at;
  std::string from, to, reason;
};

class CommandTraceWriter {
 public:
  static constexpr std::string_view kHeader =
      "kind,t_ns,queue,cid,op,lba,blocks,submit_ns,doorbell_ns,cqe_posted_ns,cqe_seen_ns,irq_ns,"
      "completed_by,status,cqes,mode_from,mode_to,reason,unit_done_ns";

  explicit CommandTraceWriter(std::ostream& out) : out_(out) { out_ << kHeader << '\n'; }

  void write(const CommandRecord& r) {
    out_ << "cmd," << r.cqe_seen.ns() << ',' << r.queue << ',' << r.cid << ',' << name(r.op) << ','
         << r.lba << ',' << r.blocks << ',' << r.submit.ns() << ',' << r.doorbell.ns() << ',';
    if (r.cqe_posted) out_ << r.cqe_posted->ns();
    out_ << ',' << r.cqe_seen.ns() << ',';
    if (r.irq) out_ << r.irq->ns();
    out_ << ',' << trace_name(r.completed_by) << ',' << r.status << ",,,,,";
    if (r.unit_done) out_ << r.unit_done->ns();
    out_ << '\n';
  }

  void write(const InflightRecord& r) {
    out_ << "inflight," << r.at.ns() << ',' << r.queue << ',' << r.cid << ',' << name(r.op) << ',' << r.lba << ','
         << r.blocks << ',' << r.submit.ns() << ',';
    if (r.doorbell) out_ << r.doorbell->ns();
    out_ << ',';
    if (r.cqe_posted) out_ << r.cqe_posted->ns();
    out_ << ",,,,,,,,,";
    if (r.unit_done) out_ << r.unit_done->ns();
    out_ << '\n';
  }

  void write(const IrqRecord& r) {
    out_ << (r.held ? "irq_held," : "irq,") << r.at.ns() << ',' << r.queue << ",,,,,,,,,"
         << r.at.ns() << ",irq,,";
    if (!r.held) out_ << r.cqes;
    out_ << ",,,,\n";
  }

  void write(const ModeRecord& r) {
    out_ << "mode," << r.at.ns() << ',' << r.queue << ",,,,,,,,,,,,," << quoted(r.from) << ','
         << quoted(r.to) << ',' << quoted(r.reason) << ",\n";
  }

 private:
  // RFC 4180: quote a field holding a comma, quote or newline; double inner quotes.
  static std::string quoted(std::string_view s) {
    if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
    std::string q = "\"";
    for (char c : s) {
      if (c == '"') q += '"';
      q += c;
    }
    return q + '"';
  }

  std::ostream& out_;
};

}  // namespace nvmesim::trace
