#include "app/replay/replay_load.h"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <vector>

#include "app/input/input_file.h"
#include "app/input/input_limits.h"
#include "app/replay/command_trace_reader.h"
#include "app/replay/iolog_reader.h"
#include "app/replay/replay_target.h"

namespace nvmesim {
namespace {

using replay::ReplayTarget;

// A CID names one command in flight per queue: reusing it before the earlier command's
// CQE was seen is a broken trace.
std::optional<InputError> check_cids(const ReplayTarget& target) {
  const ReplayTrace& trace = target.trace();
  if (trace.format != "command-trace") return std::nullopt;
  std::vector<uint32_t> order(trace.commands.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto& cs = trace.commands;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return std::tie(cs[a].queue, cs[a].cid) < std::tie(cs[b].queue, cs[b].cid);
  });
  for (std::size_t i = 1; i < order.size(); ++i) {
    const ReplayCommand& p = cs[order[i - 1]];
    const ReplayCommand& c = cs[order[i]];
    if (p.queue == c.queue && p.cid == c.cid && c.submit < p.seen)
      return target.at(std::max(p.line, c.line), "cid",
                       "cid " + std::to_string(c.cid) + " reused while in flight (lines " +
                           std::to_string(std::min(p.line, c.line)) + " and " + std::to_string(std::max(p.line, c.line)) +
                           " on the same queue overlap)");
  }
  return std::nullopt;
}

// The UTF-8 byte-order mark spreadsheets write at the start of a CSV export.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// The format from the first line, then its reader, then the commands in submit order.
std::variant<ReplayTrace, InputError> load(std::string_view text, ReplayTarget& target) {
  // Skipped, not read as part of the first line: "\xEF\xBB\xBFkind,..." was an unknown format.
  if (text.substr(0, kUtf8Bom.size()) == kUtf8Bom) text.remove_prefix(kUtf8Bom.size());
  if (text.empty()) return target.at(1, "empty file: expected a command-trace CSV header or \"fio version 3 iolog\"");
  std::string_view first_line = text.substr(0, text.find('\n'));
  if (!first_line.empty() && first_line.back() == '\r') first_line.remove_suffix(1);
  ReplayTrace& trace = target.trace();
  std::optional<InputError> e;
  uint32_t line_count = 1;
  // fio writes the header alone on its line: "fio version 3 iologx" is not one.
  while (!first_line.empty() && (first_line.back() == ' ' || first_line.back() == '\t')) first_line.remove_suffix(1);
  if (first_line == "fio version 3 iolog") {
    trace.format = "fio-iolog-v3";
    e = replay::read_iolog(text, target, line_count);
  } else if (first_line.rfind("fio version 2 iolog", 0) == 0) {
    return target.at(1, "fio iolog version 2 has no timestamps; write it with fio 3.30 or later (version 3)");
  } else if (first_line.rfind("kind,", 0) == 0) {
    trace.format = "command-trace";
    e = replay::read_command_trace(text, target, line_count);
  } else {
    return target.at(1, "unknown format: expected the command-trace CSV header (kind,t_ns,...) or \"fio version 3 iolog\"");
  }
  if (e) return *e;
  if (trace.commands.empty()) return target.at(line_count, "no commands to replay in the file");
  std::stable_sort(trace.commands.begin(), trace.commands.end(),
                   [](const ReplayCommand& a, const ReplayCommand& b) { return a.submit < b.submit; });
  if (auto ce = check_cids(target)) return *ce;
  return std::move(trace);
}

}  // namespace

std::variant<ReplayTrace, InputError> parse_replay(const std::string& text, const ReplayLoadOptions& opts,
                                                   const Scenario& sc) {
  ReplayTarget target(opts, sc);
  return load(text, target);
}

std::variant<ReplayTrace, InputError> load_replay(const ReplayLoadOptions& opts, const Scenario& sc) {
  auto text = read_input_file(opts.path, limits::kMaxReplayFileBytes);
  if (auto* e = std::get_if<FileError>(&text)) return InputError{"--replay", e->message};
  return parse_replay(std::get<std::string>(text), opts, sc);
}

}  // namespace nvmesim
