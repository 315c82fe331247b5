#include "app/scenario/fio_job.h"

#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "app/input/checked_number.h"
#include "app/input/input_file.h"
#include "app/input/input_limits.h"
#include "app/input/json_reader.h"
#include "app/input/json_text.h"

namespace nvmesim {
using nlohmann::json;

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

struct Option {
  std::string value;
  int line = 0;
  // Values this one replaced (the same option earlier in its section, or in [global]):
  // fio's last one wins, but every one must be valid, as fio checks each as it reads it.
  std::vector<Option> replaced;
};
using Section = std::map<std::string, Option>;

// Options that do not change what the model simulates (it always does direct,
// time-based I/O on the whole device, one report per job).
const std::set<std::string> kIgnored = {"direct", "time_based", "group_reporting", "name", "norandommap",
                                        "randrepeat", "size", "thread", "exitall", "random_generator",
                                        "fixedbufs", "registerfiles", "sqthread_poll", "gtod_reduce",
                                        "clocksource", "invalidate", "refill_buffers", "description"};

// The file's [global] section and its job sections, in order, each option with its line.
struct FioSections {
  Section global;
  std::vector<std::pair<std::string, Section>> jobs;
};
std::variant<FioSections, InputError> parse_fio_sections(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  Section global;
  std::vector<std::pair<std::string, Section>> jobs;
  Section* cur = nullptr;
  while (std::getline(in, line)) {
    ++lineno;
    if (!valid_utf8(line)) return InputError{file + ":" + std::to_string(lineno), "is not valid UTF-8 text"};
    if (line.find('\0') != std::string::npos) return InputError{file + ":" + std::to_string(lineno), "has a NUL byte"};
    std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[') {
      if (t.back() != ']') return InputError{file + ":" + std::to_string(lineno), "unterminated section header"};
      std::string name = trim(t.substr(1, t.size() - 2));
      if (name == "global") cur = &global;
      else if (jobs.size() >= limits::kMaxJobs) {
        return InputError{file + ":" + std::to_string(lineno), "more than " + std::to_string(limits::kMaxJobs) + " job sections"};
      } else {
        jobs.emplace_back(name, Section{});
        cur = &jobs.back().second;
      }
      continue;
    }
    if (!cur) return InputError{file + ":" + std::to_string(lineno), "option outside a section"};
    auto eq = t.find('=');
    std::string key = trim(t.substr(0, eq)), val = eq == std::string::npos ? "" : trim(t.substr(eq + 1));
    Option next{val, lineno, {}};
    if (auto it = cur->find(key); it != cur->end()) {
      next.replaced = std::move(it->second.replaced);
      it->second.replaced.clear();
      next.replaced.push_back(std::move(it->second));
    }
    (*cur)[key] = std::move(next);
  }
  if (jobs.empty()) return InputError{file, "no job section"};
  return FioSections{std::move(global), std::move(jobs)};
}

// One option of a job's merged section into the job's JSON (runtime and ramp_time are
// the scenario's, not the job's); the error names file:line and the option.
std::optional<InputError> apply_fio_option(const std::string& key, const Option& opt, const std::string& file, json& j,
                                           std::optional<int64_t>& runtime, std::optional<int64_t>& ramp) {
  std::string where = file + ":" + std::to_string(opt.line);
  auto bad = [&](const std::string& why) { return InputError{where, "option '" + key + "': " + why}; };
  // The same checked conversion as the JSON reader: no wrap at any magnitude.
  auto number = [&](int64_t& v) -> bool {
    auto x = in_range(parse_integral(opt.value), INT64_MIN, INT64_MAX);
    if (x) v = *x;
    return x.has_value();
  };
  int64_t v = 0;
  if (kIgnored.count(key)) return std::nullopt;
  if (key == "ioengine") {
    if (opt.value != "libaio" && opt.value != "io_uring")
      return bad("ioengine '" + opt.value + "' is not supported (libaio, io_uring)");
    j["ioengine"] = opt.value;
  } else if (key == "rw" || key == "readwrite") {
    j["rw"] = opt.value;  // validated with the scenario
  } else if (key == "rwmixread" || key == "rwmixwrite") {
    if (!number(v) || v < 0 || v > 100) return bad("must be a percentage, got '" + opt.value + "'");
    j["rwmixread"] = key == "rwmixread" ? v : 100 - v;
  } else if (key == "bs" || key == "blocksize") {
    auto b = parse_size(opt.value);
    if (!b) return bad("must be a size like 4k, got '" + opt.value + "'");
    j["bs"] = *b;
  } else if (key == "iodepth" || key == "numjobs" || key == "iodepth_batch" || key == "iodepth_batch_submit" ||
             key == "iodepth_batch_complete" || key == "iodepth_batch_complete_min" ||
             key == "iodepth_batch_complete_max" || key == "rate_iops") {
    if (!number(v) || v < 0) return bad("must be a non-negative integer, got '" + opt.value + "'");
    std::string k = key == "iodepth_batch" ? "iodepth_batch_submit"
                  : key == "iodepth_batch_complete" ? "iodepth_batch_complete_min" : key;
    j[k] = v;
  } else if (key == "hipri") {
    // Anything else ("true", "2", "yes") was read as off without a word.
    if (!opt.value.empty() && opt.value != "0" && opt.value != "1")
      return bad("must be given alone, 1 (on) or 0 (off), got '" + opt.value + "'");
    j["hipri"] = opt.value != "0";
  } else if (key == "cpus_allowed") {
    j["cpus_allowed"] = opt.value;
  } else if (key == "cpus_allowed_policy") {
    if (opt.value != "split") return bad("only 'split' is modelled (each clone on its own CPU)");
  } else if (key == "rate_process") {
    j["rate_process"] = opt.value;
  } else if (key == "runtime" || key == "ramp_time") {
    auto ns = parse_duration_ns(opt.value, 1000000000);  // fio: seconds by default
    if (!ns) return bad("must be a time like 10s or 500ms (at most 3600s), got '" + opt.value + "'");
    if (*ns > limits::kMaxRunDuration.count_ns() || (key == "runtime" && *ns < 1000))
      return bad("must be between " + std::string(key == "runtime" ? "1us" : "0") + " and " +
                 std::to_string(limits::kMaxRunDuration.count_ns() / 1000000000) + "s, got '" + opt.value + "'");
    (key == "runtime" ? runtime : ramp) = *ns;
  } else if (key == "filename") {
    // /dev/nvmeXn1[:/dev/nvmeYn1...] -> drives X, Y
    json drives = json::array();
    std::stringstream fs(opt.value);
    std::string f;
    while (std::getline(fs, f, ':')) {
      auto idx = nvme_namespace_drive(f);
      if (!idx) return bad("only /dev/nvmeXnY devices (X < " + std::to_string(limits::kMaxDrives) + ") are modelled, got '" + f + "'");
      drives.push_back(*idx);
    }
    if (drives.empty()) return bad("must name at least one /dev/nvmeXnY device");
    j["drives"] = drives;
  } else {
    return InputError{where, "option '" + key + "' is not supported by nvmesim's fio reader"};
  }
  return std::nullopt;
}

}  // namespace

std::variant<json, InputError> fio_text_to_scenario_patch(const std::string& text, const std::string& file) {
  auto parsed = parse_fio_sections(text, file);
  if (auto* e = std::get_if<InputError>(&parsed)) return *e;
  const FioSections& sections = std::get<FioSections>(parsed);
  json patch;
  json out_jobs = json::array();
  std::optional<int64_t> runtime, ramp;
  for (const auto& [name, own] : sections.jobs) {
    Section s = sections.global;
    for (const auto& [k, v] : own) {
      Option o = v;
      if (auto g = sections.global.find(k); g != sections.global.end()) {  // [global]'s values came first
        std::vector<Option> before = g->second.replaced;
        before.push_back(Option{g->second.value, g->second.line, {}});
        before.insert(before.end(), o.replaced.begin(), o.replaced.end());
        o.replaced = std::move(before);
      }
      s[k] = std::move(o);
    }
    json j;
    j["name"] = name;
    for (const auto& [key, opt] : s) {
      for (const Option& earlier : opt.replaced) {  // checked, then replaced
        json scratch;
        std::optional<int64_t> r0, r1;
        if (auto e = apply_fio_option(key, earlier, file, scratch, r0, r1)) return *e;
      }
      if (auto e = apply_fio_option(key, opt, file, j, runtime, ramp)) return *e;
    }
    out_jobs.push_back(j);
  }
  patch["jobs"] = out_jobs;
  if (runtime) patch["duration_us"] = *runtime / 1000;
  if (ramp) patch["warmup_us"] = *ramp / 1000;
  return patch;
}

std::optional<uint32_t> nvme_namespace_drive(const std::string& name) {
  // Exactly /dev/nvme<X>n<Y>: decimal X and Y, nothing before or after.
  const std::string prefix = "/dev/nvme";
  if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::string rest = name.substr(prefix.size());
  auto n = rest.find('n');
  if (n == std::string::npos) return std::nullopt;
  auto drive = in_range(parse_integral(rest.substr(0, n)), 0, limits::kMaxDrives - 1);
  auto ns = in_range(parse_integral(rest.substr(n + 1)), 1, UINT32_MAX);
  if (!drive || !ns || rest[0] == '-' || rest[n + 1] == '-') return std::nullopt;
  return static_cast<uint32_t>(*drive);
}

std::variant<json, InputError> fio_file_to_scenario_patch(const std::string& path) {
  auto text = read_input_file(path, limits::kMaxInputFileBytes);
  if (auto* why = std::get_if<FileError>(&text)) return InputError{path, why->message};
  return fio_text_to_scenario_patch(std::get<0>(text), path);
}

}  // namespace nvmesim
