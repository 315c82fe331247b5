#include "app/scenario/fio_job.h"

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
  std::string key, value;
  int line = 0;
};
// One section, its options in file order: fio reads them in order, so the later of two
// lines that set the same field wins (an option given twice, bs and blocksize,
// rwmixread and rwmixwrite), and every line's value is checked, as fio checks each.
struct FioSection {
  std::string name;
  bool global = false;
  std::vector<Option> options;
};

// Options that do not change what the model simulates (it always does direct,
// time-based I/O on the whole device, one report per job).
const std::set<std::string> kIgnored = {"direct", "time_based", "group_reporting", "name", "norandommap",
                                        "randrepeat", "size", "thread", "exitall", "random_generator",
                                        "fixedbufs", "registerfiles", "sqthread_poll", "gtod_reduce",
                                        "clocksource", "invalidate", "refill_buffers", "description"};

// The file's sections in order ([global] ones included), each option with its line.
std::variant<std::vector<FioSection>, InputError> parse_fio_sections(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  std::vector<FioSection> sections;
  std::size_t jobs = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!valid_utf8(line)) return InputError{file + ":" + std::to_string(lineno), "is not valid UTF-8 text"};
    if (line.find('\0') != std::string::npos) return InputError{file + ":" + std::to_string(lineno), "has a NUL byte"};
    // fio reads a byte-order mark as part of the first line ("option outside a section"
    // in our words, which the [job] the user sees does not explain): said as what it is.
    if (lineno == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0)
      return InputError{file + ":1", "starts with a UTF-8 byte-order mark, which fio does not read: save the file without it"};
    std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[') {
      if (t.back() != ']') return InputError{file + ":" + std::to_string(lineno), "unterminated section header"};
      const std::string inside = t.substr(1, t.size() - 2);
      // fio's rule (parse_jobs_ini in its init.c: strncmp(name, "global", 6)): a section
      // whose name starts with "global" ([global], [global_x], [globals]) is a global one,
      // as fio spells it, case and blanks included ([Global] and [ global] are jobs).
      const bool global = inside.compare(0, 6, "global") == 0;
      std::string name = trim(inside);
      if (!global && jobs++ >= limits::kMaxJobs)
        return InputError{file + ":" + std::to_string(lineno), "more than " + std::to_string(limits::kMaxJobs) + " job sections"};
      sections.push_back(FioSection{name, global, {}});
      continue;
    }
    if (sections.empty()) return InputError{file + ":" + std::to_string(lineno), "option outside a section"};
    auto eq = t.find('=');
    std::string key = trim(t.substr(0, eq)), val = eq == std::string::npos ? "" : trim(t.substr(eq + 1));
    sections.back().options.push_back(Option{key, val, lineno});
  }
  if (jobs == 0) return InputError{file, "no job section"};
  return sections;
}

// What the options read so far set: a job's JSON (runtime and ramp_time are the
// scenario's, not the job's), and the line each field came from.
struct JobState {
  json j = json::object();
  std::map<std::string, FioSource> sources;  // by field of j: "iodepth"
  std::optional<int64_t> runtime, ramp;
  FioSource runtime_from, ramp_from;
};

// One option into the state, in file order (a later option setting the same field
// replaces it); the error names file:line and the option.
std::optional<InputError> apply_fio_option(const Option& opt, const std::string& file, JobState& s) {
  const std::string& key = opt.key;
  std::string where = file + ":" + std::to_string(opt.line);
  auto bad = [&](const std::string& why) { return InputError{where, "option '" + key + "': " + why}; };
  auto set = [&](const std::string& field, json value) {
    s.j[field] = std::move(value);
    s.sources[field] = FioSource{file, opt.line, key};
  };
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
    set("ioengine", opt.value);
  } else if (key == "rw" || key == "readwrite") {
    set("rw", opt.value);  // validated with the scenario
  } else if (key == "rwmixread" || key == "rwmixwrite") {
    if (!number(v) || v < 0 || v > 100) return bad("must be a percentage, got '" + opt.value + "'");
    set("rwmixread", key == "rwmixread" ? v : 100 - v);
  } else if (key == "bs" || key == "blocksize") {
    auto b = parse_size(opt.value);
    if (!b) return bad("must be a size like 4k, got '" + opt.value + "'");
    set("bs", *b);
  } else if (key == "iodepth" || key == "numjobs" || key == "iodepth_batch" || key == "iodepth_batch_submit" ||
             key == "iodepth_batch_complete" || key == "iodepth_batch_complete_min" ||
             key == "iodepth_batch_complete_max" || key == "rate_iops") {
    if (!number(v) || v < 0) return bad("must be a non-negative integer, got '" + opt.value + "'");
    std::string k = key == "iodepth_batch" ? "iodepth_batch_submit"
                  : key == "iodepth_batch_complete" ? "iodepth_batch_complete_min" : key;
    set(k, v);
  } else if (key == "hipri") {
    // Anything else ("true", "2", "yes") was read as off without a word.
    if (!opt.value.empty() && opt.value != "0" && opt.value != "1")
      return bad("must be given alone, 1 (on) or 0 (off), got '" + opt.value + "'");
    set("hipri", opt.value != "0");
  } else if (key == "cpus_allowed") {
    set("cpus_allowed", opt.value);
  } else if (key == "cpus_allowed_policy") {
    if (opt.value != "split") return bad("only 'split' is modelled (each clone on its own CPU)");
  } else if (key == "rate_process") {
    set("rate_process", opt.value);
  } else if (key == "runtime" || key == "ramp_time") {
    auto ns = parse_duration_ns(opt.value, 1000000000);  // fio: seconds by default
    if (!ns) return bad("must be a time like 10s or 500ms (at most 3600s), got '" + opt.value + "'");
    if (*ns > limits::kMaxRunDuration.count_ns() || (key == "runtime" && *ns < 1000))
      return bad("must be between " + std::string(key == "runtime" ? "1us" : "0") + " and " +
                 std::to_string(limits::kMaxRunDuration.count_ns() / 1000000000) + "s, got '" + opt.value + "'");
    (key == "runtime" ? s.runtime : s.ramp) = *ns;
    (key == "runtime" ? s.runtime_from : s.ramp_from) = FioSource{file, opt.line, key};
  } else if (key == "filename") {
    // /dev/nvmeXn1[:/dev/nvmeYn1...] -> drives X, Y
    json drives = json::array();
    std::vector<std::string> given;  // each drive's device as the line names it
    // Split at every ':', an empty name included: getline dropped a trailing one, so
    // "/dev/nvme0n1:" was taken while ":" was refused.
    for (std::size_t from = 0, to = 0; to != std::string::npos; from = to + 1) {
      to = opt.value.find(':', from);
      const std::string f = opt.value.substr(from, to == std::string::npos ? std::string::npos : to - from);
      auto idx = nvme_namespace_drive(f);
      if (!idx) return bad("only /dev/nvmeXnY devices (X < " + std::to_string(limits::kMaxDrives) + ") are modelled, got '" + f + "'");
      // Refused here, in the line's words: the loader's "listed twice" names JSON paths.
      for (std::size_t k = 0; k < drives.size(); ++k)
        if (drives[k] == *idx)
          return bad((given[k] == f ? f + " is given twice"
                                    : given[k] + " and " + f + " are both drive " + std::to_string(*idx) +
                                          " (namespaces of a drive are not modelled apart)") +
                     ": a job submits to each of its drives once");
      drives.push_back(*idx);
      given.push_back(f);
    }
    if (drives.empty()) return bad("must name at least one /dev/nvmeXnY device");
    set("drives", drives);
  } else {
    return InputError{where, "option '" + key + "' is not supported by nvmesim's fio reader"};
  }
  return std::nullopt;
}

}  // namespace

std::variant<FioConversion, InputError> fio_text_to_scenario(const std::string& text, const std::string& file) {
  auto parsed = parse_fio_sections(text, file);
  if (auto* e = std::get_if<InputError>(&parsed)) return *e;
  FioConversion out;
  json jobs = json::array();
  JobState run;  // the scenario's runtime and ramp_time
  // As fio: [global] lines set the defaults of the jobs below them; a job starts from
  // those and applies its own lines after them.
  JobState global;
  for (const FioSection& section : std::get<std::vector<FioSection>>(parsed)) {
    if (section.global) {
      for (const Option& opt : section.options)
        if (auto e = apply_fio_option(opt, file, global)) return *e;
      continue;
    }
    JobState s = global;
    for (const Option& opt : section.options)
      if (auto e = apply_fio_option(opt, file, s)) return *e;
    s.j["name"] = section.name;
    const std::string at = "/jobs/" + std::to_string(jobs.size()) + "/";
    for (const auto& [field, from] : s.sources) out.sources[at + field] = from;
    // The scenario's run and warm-up: those of the last job that has them.
    if (s.runtime) {
      run.runtime = s.runtime;
      run.runtime_from = s.runtime_from;
    }
    if (s.ramp) {
      run.ramp = s.ramp;
      run.ramp_from = s.ramp_from;
    }
    jobs.push_back(std::move(s.j));
  }
  out.patch["jobs"] = std::move(jobs);
  if (run.runtime) {
    out.patch["duration_us"] = *run.runtime / 1000;
    out.sources["/duration_us"] = run.runtime_from;
  }
  if (run.ramp) {
    out.patch["warmup_us"] = *run.ramp / 1000;
    out.sources["/warmup_us"] = run.ramp_from;
  }
  return out;
}

std::variant<json, InputError> fio_text_to_scenario_patch(const std::string& text, const std::string& file) {
  auto r = fio_text_to_scenario(text, file);
  if (auto* e = std::get_if<InputError>(&r)) return *e;
  return std::move(std::get<FioConversion>(r).patch);
}

std::optional<InputError> fio_line_error(const InputError& e, const std::map<std::string, FioSource>& sources) {
  // The field itself, or the field an element of it belongs to (/jobs/0/drives/1).
  std::string path = e.path;
  while (!path.empty()) {
    if (auto it = sources.find(path); it != sources.end()) {
      const FioSource& from = it->second;
      return InputError{from.file + ":" + std::to_string(from.line), "option '" + from.option + "': " + e.message};
    }
    auto slash = path.rfind('/');
    if (slash == std::string::npos) break;
    path.resize(slash);
  }
  return std::nullopt;
}

std::optional<uint32_t> nvme_namespace_drive(const std::string& name) {
  // Exactly /dev/nvme<X>n<Y>: decimal X and Y, nothing before or after.
  const std::string prefix = "/dev/nvme";
  if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::string rest = name.substr(prefix.size());
  auto n = rest.find('n');
  if (n == std::string::npos) return std::nullopt;
  // As the kernel writes them: digits, no sign and no leading zero (nvme00n1, nvme0n01 are
  // no devices, and were taken for nvme0n1).
  const auto decimal = [](const std::string& d) {
    return !d.empty() && d.find_first_not_of("0123456789") == std::string::npos && (d.size() == 1 || d[0] != '0');
  };
  if (!decimal(rest.substr(0, n)) || !decimal(rest.substr(n + 1))) return std::nullopt;
  auto drive = in_range(parse_integral(rest.substr(0, n)), 0, limits::kMaxDrives - 1);
  auto ns = in_range(parse_integral(rest.substr(n + 1)), 1, UINT32_MAX);
  if (!drive || !ns) return std::nullopt;
  return static_cast<uint32_t>(*drive);
}

std::variant<FioConversion, InputError> fio_file_to_scenario(const std::string& path) {
  auto text = read_input_file(path, limits::kMaxInputFileBytes);
  if (auto* why = std::get_if<FileError>(&text)) return InputError{path, why->message};
  return fio_text_to_scenario(std::get<0>(text), path);
}

std::variant<json, InputError> fio_file_to_scenario_patch(const std::string& path) {
  auto r = fio_file_to_scenario(path);
  if (auto* e = std::get_if<InputError>(&r)) return *e;
  return std::move(std::get<FioConversion>(r).patch);
}

}  // namespace nvmesim
