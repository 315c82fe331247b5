#include "hw/block_usage.h"

#include <sys/sysmacros.h>

#include <algorithm>
#include <sstream>

#include "hw/strict_number.h"

namespace nvmesim::hw {

namespace {

const BlockDevice* find_dev(const std::vector<BlockDevice>& devs, dev_t d) {
  auto it = std::find_if(devs.begin(), devs.end(), [&](const BlockDevice& b) { return b.dev == d; });
  return it == devs.end() ? nullptr : &*it;
}

// mountinfo and swaps escape blanks in paths as \040 (octal); decode for messages.
std::string unescape_octal(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    auto oct = [&](size_t k, char hi) { return k < s.size() && s[k] >= '0' && s[k] <= hi; };
    if (s[i] == '\\' && oct(i + 1, '3') && oct(i + 2, '7') && oct(i + 3, '7')) {
      out += char((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string> fields_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> f;
  for (std::string w; in >> w;) f.push_back(w);
  return f;
}

}  // namespace

std::optional<dev_t> parse_major_minor(const std::string& text) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  uint64_t major = 0, minor = 0;
  if (!parse_decimal(text.substr(0, colon), 0, 0xfffff, &major).empty()) return std::nullopt;
  if (!parse_decimal(text.substr(colon + 1), 0, 0xfffff, &minor).empty()) return std::nullopt;
  return makedev(unsigned(major), unsigned(minor));
}

std::vector<BlockUse> mounts_using(const std::vector<BlockDevice>& devs, const std::string& mountinfo,
                                   const BlockNumberOf& number_of) {
  std::vector<BlockUse> uses;
  std::istringstream in(mountinfo);
  for (std::string line; std::getline(in, line);) {
    // id parent major:minor root mountpoint options [optional...] - fstype source superopts
    std::vector<std::string> f = fields_of(line);
    if (f.size() < 5) continue;
    auto dash = std::find(f.begin() + 5, f.end(), "-");
    const std::string mountpoint = unescape_octal(f[4]);
    const BlockDevice* hit = nullptr;
    if (auto d = parse_major_minor(f[2])) hit = find_dev(devs, *d);
    if (!hit && dash != f.end() && f.end() - dash >= 3) {
      const std::string source = unescape_octal(*(dash + 2));
      if (!source.empty() && source[0] == '/')
        if (auto d = number_of(source)) hit = find_dev(devs, *d);
    }
    if (hit) uses.push_back({"/dev/" + hit->name, "is mounted on " + mountpoint});
  }
  return uses;
}

std::vector<BlockUse> swaps_using(const std::vector<BlockDevice>& devs, const std::string& swaps,
                                  const BlockNumberOf& number_of) {
  std::vector<BlockUse> uses;
  std::istringstream in(swaps);
  std::string line;
  std::getline(in, line);  // header: Filename Type Size Used Priority
  while (std::getline(in, line)) {
    std::vector<std::string> f = fields_of(line);
    if (f.empty()) continue;
    // A path with a blank is escaped as \040, so the first field is the whole path.
    if (auto d = number_of(unescape_octal(f[0])))
      if (const BlockDevice* hit = find_dev(devs, *d)) uses.push_back({"/dev/" + hit->name, "is used as swap"});
  }
  return uses;
}

std::vector<BlockUse> openers_of(const std::vector<BlockDevice>& devs, const std::vector<OpenBlockFile>& open) {
  std::vector<BlockUse> uses;
  for (const auto& o : open)
    if (const BlockDevice* hit = find_dev(devs, o.dev))
      uses.push_back({"/dev/" + hit->name,
                      "is open in process " + std::to_string(o.pid) + " (" + o.command + ")"});
  return uses;
}

}  // namespace nvmesim::hw
