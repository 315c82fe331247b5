#include "app/replay/iolog_reader.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "app/replay/csv_record.h"

namespace nvmesim::replay {
namespace {

// The line's fields, split at spaces and tabs.
std::vector<std::string_view> tokens(std::string_view l) {
  std::vector<std::string_view> tok;
  for (std::size_t i = 0; i < l.size();) {
    while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < l.size() && l[j] != ' ' && l[j] != '\t') ++j;
    if (j > i) tok.push_back(l.substr(i, j - i));
    i = j;
  }
  return tok;
}

// The files the log has added, each mapped to a drive.
class Files {
 public:
  explicit Files(const ReplayTarget& target) : target_(target), drive_taken_(target.scenario().drives.size(), false) {}

  using Entry = std::pair<std::string, uint32_t>;  // name -> drive
  const Entry* find(const std::string& file) const {
    auto it = std::find_if(files_.begin(), files_.end(), [&](const Entry& f) { return f.first == file; });
    return it == files_.end() ? nullptr : &*it;
  }

  // A line "TIME FILE add|open|close".
  std::optional<InputError> action(uint32_t line, const std::string& file, std::string_view act) {
    const Entry* known = find(file);
    if (act == "add") {
      if (known) return std::nullopt;
      auto d = drive_of_file(file);
      if (!d) return target_.at(line, "2 (file)", "no drive left for file '" + file + "': the scenario has " +
                                                      std::to_string(target_.scenario().drives.size()) + " drive(s)");
      drive_taken_[*d] = true;
      files_.emplace_back(file, *d);
    } else if (act == "open" || act == "close") {
      if (!known) return target_.at(line, "2 (file)", "file '" + file + "' was not added");
    } else {
      return target_.at(line, "3 (action)", "expected add, open or close, got '" + std::string(act) + "'");
    }
    return std::nullopt;
  }

 private:
  // A file maps to the drive whose name it contains (the longest, e.g. /dev/nvme1n1 ->
  // nvme1), else to the first drive no file has taken yet; --replay-drive maps every file.
  std::optional<uint32_t> drive_of_file(const std::string& file) const {
    if (!target_.options().drive.empty()) return target_.named_drive();
    const auto& drives = target_.scenario().drives;
    std::optional<uint32_t> best;
    for (uint32_t d = 0; d < drives.size(); ++d) {
      const std::string& n = drives[d].name;
      if (!n.empty() && file.find(n) != std::string::npos && (!best || n.size() > drives[*best].name.size())) best = d;
    }
    if (best) return best;
    for (uint32_t d = 0; d < drive_taken_.size(); ++d)
      if (!drive_taken_[d]) return d;
    return std::nullopt;
  }

  const ReplayTarget& target_;
  std::vector<Entry> files_;
  std::vector<bool> drive_taken_;
};

// fio's iolog has no queue: the scenario's first job clone on this drive submits it, on
// the queue that clone uses, as it would when running the job. False when no clone does.
bool place_on_drive(const Topology& topo, uint32_t drive, ReplayCommand& c) {
  std::optional<uint32_t> job;
  for (uint32_t k = 0; k < topo.jobs().size() && !job; ++k) {
    const auto& jc = topo.jobs()[k];
    for (uint32_t gq : jc.queues)
      if (topo.queue(gq).drive == drive) {
        job = k;
        break;
      }
  }
  if (!job) return false;
  c.job = *job;
  for (uint32_t gq : topo.jobs()[*job].queues)
    if (topo.queue(gq).drive == drive) c.queue = gq;
  return true;
}

}  // namespace

std::optional<InputError> read_iolog(std::string_view text, ReplayTarget& target, uint32_t& line_count) {
  if (target.options().service)
    return InputError{"--replay-service", "an iolog has no device times; it needs a command trace (CSV)"};
  Files files(target);
  std::size_t pos = text.find('\n');
  uint32_t line = 1;
  int64_t last_t = -1;
  uint32_t seq = 0;
  while (pos != std::string::npos && pos + 1 <= text.size()) {
    std::size_t start = pos + 1;
    pos = text.find('\n', start);
    ++line;
    std::string_view l = text.substr(start, pos == std::string::npos ? std::string::npos : pos - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    const std::vector<std::string_view> tok = tokens(l);
    if (tok.empty()) continue;
    if (tok.size() != 3 && tok.size() != 5)
      return target.at(line, "expected TIME FILE ACTION [OFFSET LENGTH], got " + std::to_string(tok.size()) + " fields");
    auto t = parse_int(tok[0]);
    if (!t || *t < 0 || *t > kMaxTimeNs / 1000)
      return target.at(line, "1 (time)", "expected microseconds since the start, got '" + std::string(tok[0]) + "'");
    if (*t < last_t)
      return target.at(line, "1 (time)", "time goes backwards: " + std::to_string(*t) + " after " + std::to_string(last_t));
    last_t = *t;
    const std::string file(tok[1]);
    const std::string_view act = tok[2];
    if (tok.size() == 3) {
      if (auto e = files.action(line, file, act)) return e;
      continue;
    }
    const Files::Entry* known = files.find(file);
    if (!known) return target.at(line, "2 (file)", "file '" + file + "' was not added");
    auto offset = parse_int(tok[3]);
    if (!offset || *offset < 0)
      return target.at(line, "4 (offset)", "expected a byte offset, got '" + std::string(tok[3]) + "'");
    auto len = parse_int(tok[4]);
    // A line skipped below is checked as the others: "trim 0 banana" is no line of fio's.
    if (!len || *len < 0)
      return target.at(line, "5 (length)", "expected a length in bytes, got '" + std::string(tok[4]) + "'");
    if (act == "trim" || act == "sync" || act == "datasync" || act == "wait") {  // no such command in the model
      ++target.trace().skipped;
      continue;
    }
    if (act != "read" && act != "write")
      return target.at(line, "3 (action)", "expected read, write, trim, sync, datasync, add, open or close, got '" +
                                               std::string(act) + "'");
    // Whole 512-byte blocks, as a command trace's blocks and a job's bs are: an NVMe
    // command moves whole blocks (a 100-byte read was simulated as a 100-byte transfer).
    if (*len < 512 || *len > (int64_t{1} << 31) || *len % 512 != 0)
      return target.at(line, "5 (length)", "expected a length of whole 512-byte blocks, from 512 to 2147483648 bytes, got '" +
                                               std::string(tok[4]) + "'");
    const uint32_t drive = known->second;
    ReplayCommand c;
    if (!place_on_drive(target.topology(), drive, c))
      return target.at(line, "2 (file)", "no job of the scenario targets " + target.scenario().drives[drive].name);
    c.line = line;
    c.cid = seq++;
    c.bytes = static_cast<uint32_t>(*len);
    c.write = act == "write";
    c.submit = Time::from_ns(*t * 1000);
    if (auto e = target.add(c, line)) return e;
  }
  line_count = line;
  return std::nullopt;
}

}  // namespace nvmesim::replay
