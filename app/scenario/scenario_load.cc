#include "app/scenario/scenario_load.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>

#include "app/input/checked_number.h"
#include "app/input/input_file.h"
#include "app/input/json_reader.h"
#include "app/input/json_text.h"
#include "app/profile/device_profile_json.h"
#include "app/profile/host_profile_json.h"
#include "app/profile/profile_ranges.h"
#include "app/scenario/fio_job.h"
#include "app/scenario/job_load.h"
#include "app/scenario/memory_estimate.h"
#include "app/scenario/scenario_json.h"
#include "models/device/flash_writes.h"
#include "policies/registry.h"

namespace nvmesim {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {


std::optional<json> read_json_file(const fs::path& p, const std::string& where, std::optional<InputError>& err) {
  auto text = read_input_file(p.string(), limits::kMaxInputFileBytes);
  if (auto* why = std::get_if<FileError>(&text)) {
    err = InputError{where, why->message};
    return std::nullopt;
  }
  auto doc = parse_json_text(std::get<0>(text));
  if (auto* e = std::get_if<JsonTextError>(&doc)) {
    err = InputError{where, p.string() + ": " + e->message};
    return std::nullopt;
  }
  return std::move(std::get<json>(doc));
}

fs::path resolve(const std::string& base_dir, const std::string& file) {
  return fs::path(resolve_scenario_file(base_dir, file));
}

// Profile files already read in this load, by file name: a testbed of many drives names
// the same file many times.
using ProfileCache = std::map<std::string, json>;

// Replaces a profile given as a file name with the file's content, keeping the name.
void inline_profile(json& slot, const std::string& where, const std::string& base_dir,
                    std::optional<InputError>& err, ProfileCache& cache) {
  if (!slot.is_string()) return;
  std::string file = slot.get<std::string>();
  auto cached = cache.find(file);
  if (cached != cache.end()) {
    slot = cached->second;
    return;
  }
  auto doc = read_json_file(resolve(base_dir, file), where, err);
  if (!doc) return;
  if (!doc->is_object()) {
    err = InputError{where, file + ": a profile must be a JSON object"};
    return;
  }
  (*doc)["file"] = file;
  slot = cache[file] = std::move(*doc);
}

// Every profile slot that holds a file name: the host and each drive's profile.
void inline_profiles(json& doc, const std::string& base_dir, std::optional<InputError>& err) {
  ProfileCache cache;
  if (doc.contains("host")) inline_profile(doc["host"], "/host", base_dir, err, cache);
  if (doc.contains("drives") && doc["drives"].is_array())
    for (std::size_t i = 0; i < doc["drives"].size() && !err; ++i)
      if (doc["drives"][i].is_object() && doc["drives"][i].contains("profile"))
        inline_profile(doc["drives"][i]["profile"], "/drives/" + std::to_string(i) + "/profile", base_dir, err, cache);
}

std::vector<std::string> split_path(const std::string& p) {
  std::vector<std::string> parts;
  char sep = !p.empty() && p[0] == '/' ? '/' : '.';
  std::string cur;
  for (std::size_t i = (sep == '/' ? 1 : 0); i <= p.size(); ++i) {
    if (i == p.size() || p[i] == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += p[i];
    }
  }
  return parts;
}

// ---- the scenario ----------------------------------------------------------------------

// The drives: each one's name and device profile, names unique.
std::optional<InputError> read_drives(JsonReader& r, const std::string& base_dir, Scenario& sc,
                                      std::optional<InputError>& err) {
  if (!r.has("drives") || !r.at("drives").is_array() || r.at("drives").empty())
    return InputError{"/drives", "must be a non-empty array of drives"};
  if (r.at("drives").size() > limits::kMaxDrives)
    return InputError{"/drives", "at most " + std::to_string(limits::kMaxDrives) + " drives, got " + std::to_string(r.at("drives").size())};
  const json& drives = r.at("drives");
  for (std::size_t i = 0; i < drives.size(); ++i) {
    std::string dp = "/drives/" + std::to_string(i);
    JsonReader dr(drives[i], dp, err);
    DriveSpec d;
    d.name = dr.string("name", "nvme" + std::to_string(i));
    if (!dr.has("profile")) dr.fail("profile", "missing: a device profile (file name or object)");
    if (err) return err;
    d.profile = read_device(dr.at("profile"), dp + "/profile", base_dir, err);
    if (err) return err;
    // Where it sits on the host's platform (after the host: its socket count bounds it).
    if (dr.has("socket")) d.socket = dr.u32("socket", 0, 0, std::max(sc.host.platform.sockets, 1u) - 1);
    if (dr.has("root_complex")) d.root_complex = dr.u32("root_complex", 0, 0, 63);
    if ((d.socket || d.root_complex) && !sc.host.platform.active() && !err)
      dr.fail(d.socket ? "socket" : "root_complex", "the host profile has no platform (host platform.interrupt_remapping): nothing to place the drive on");
    dr.reject_unknown({"profile", "comment", "socket", "root_complex"});
    if (err) return err;
    for (const auto& other : sc.drives)
      if (other.name == d.name) return InputError{dp + "/name", "duplicate drive name \"" + d.name + "\""};
    sc.drives.push_back(std::move(d));
  }
  return std::nullopt;
}

// The policy and its parameters, validated by the registry against the smallest queue
// depth of any drive, and resolved to every parameter's value.
std::optional<InputError> read_policy(const json& p, Scenario& sc, std::optional<InputError>& err) {
  JsonReader pr(p, "/policy", err);
  sc.policy.name = pr.string("name", "irq");
  if (err) return err;
  const policy::PolicyInfo* info = policy::find_policy(sc.policy.name);
  if (!info) {
    std::string names;
    for (const auto& pi : policy::kPolicies) names += (names.empty() ? "" : ", ") + std::string(pi.name);
    return InputError{"/policy/name", "unknown policy \"" + sc.policy.name + "\"; known: " + names};
  }
  policy::ParamMap given;
  if (pr.has("params")) {
    // Types here (each value an integer); names, ranges and cross-field rules in the
    // registry's one validator below.
    const json& params = pr.at("params");
    if (!params.is_object()) return InputError{"/policy/params", "must be an object"};
    JsonReader par(params, "/policy/params", err);
    for (const auto& item : params.items()) {
      int64_t v = par.integer(item.key(), 0, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
      if (err) return err;
      given[item.key()] = v;
    }
  }
  pr.reject_unknown({"params", "comment"});
  if (err) return err;
  uint32_t depth = sc.queue_depth;
  for (const auto& d : sc.drives) depth = std::min(depth, d.profile.max_queue_depth);
  if (auto e = info->validate(given, depth))
    return InputError{e->param.empty() ? "/policy/params" : "/policy/params/" + e->param, e->message};
  // Fill every parameter so the resolved scenario and the results show the values used.
  sc.policy.params = policy::resolved_params(*info, given);
  return std::nullopt;
}

}  // namespace

std::optional<InputError> check_published(const json& published) {
  std::optional<InputError> err;
  JsonReader pr(published, "/published", err);
  pr.string("source", "");
  for (const char* k : {"baseline_policy", "policy"}) {
    std::string name = pr.string(k, "irq");
    if (pr.ok() && !policy::find_policy(name)) pr.fail(k, "unknown policy \"" + name + "\"");
  }
  pr.number("baseline_iops", 0, 0, 1e10);
  pr.number("policy_iops", 0, 0, 1e10);
  pr.number("change_pct", 0, -100, 1e6);
  // A measurement of the scenario as it is (no policy change): IOPS per drive.
  pr.number("per_drive_iops", 0, 0, 1e10);
  if (pr.has("per_drive_iops") && pr.has("policy") && pr.ok())
    pr.fail("per_drive_iops", "a row is either one measurement (per_drive_iops) or a policy change (policy), not both");
  if (pr.has("change_pct_range")) {
    const json& rg = pr.at("change_pct_range");
    if (!rg.is_array() || rg.size() != 2 || !rg[0].is_number() || !rg[1].is_number() || rg[0] > rg[1])
      pr.fail("change_pct_range", "must be [low, high] percentages");
  }
  pr.reject_unknown({"change_pct_range"});
  return err;
}

namespace {


// An adaptive policy measured before its first decision is measured as its starting mode
// (policy C decides at the end of its first 50 ms cycle, where the default scenario's run
// ends): lengthen such a warm-up by the time to that decision.
void cover_first_decision(Scenario& sc) {
  const policy::PolicyInfo* p = policy::find_policy(sc.policy.name);
  if (!sc.warmup_covers_policy || !p || !p->first_decision_us) return;
  const Duration first = Duration::us(p->first_decision_us(sc.policy.params));
  if (sc.warmup >= first) return;
  if (!sc.warmup_given) sc.warmup_given = sc.warmup;
  sc.warmup = std::min(sc.warmup + first, limits::kMaxRunDuration);
}

// A drive that is written starts from a state drawn per seed (models/device/flash_writes.h):
// a write-buffer fill and a GC backlog that its flash works off before it takes host data
// at its steady rate. A window that starts inside that work-off measures how much of it
// the seed drew (and where the bursts of its end fall), not the workload: make such a
// warm-up at least the longest work-off the drive's profile can draw, for every seed alike.
void cover_drive_state(Scenario& sc) {
  if (!sc.warmup_covers_drive_state) return;
  Duration settle = Duration::zero();
  for (const JobSpec& j : sc.jobs) {
    const bool writes = j.rw == RwMode::randwrite || j.rw == RwMode::write ||
                        ((j.rw == RwMode::randrw || j.rw == RwMode::rw) && j.rwmixread < 100);
    if (!writes) continue;
    for (uint32_t d : j.drives) settle = std::max(settle, FlashWrites::drawn_state_settling(sc.drives[d].profile));
  }
  // In whole microseconds, up: the resolved scenario states warmup_us, and reloaded it must
  // run the same warm-up without lengthening it again (by the part of a microsecond).
  settle = Duration::us((settle.count_ns() + 999) / 1000);
  if (sc.warmup >= settle) return;
  sc.warmup_given = sc.warmup;
  sc.warmup_drive_state = settle;
  sc.warmup = std::min(settle, limits::kMaxRunDuration);
}

// Reads the scenario in the order its parts depend on one another; the first error wins.
std::optional<InputError> read_scenario(const json& doc, const std::string& base_dir, Scenario& sc) {
  std::optional<InputError> err;
  JsonReader r(doc, "", err);
  sc.name = r.string("name", "scenario");
  sc.seed = r.u64("seed", 1, 0, UINT64_MAX);
  sc.duration = r.duration("duration_us", Duration::ms(100), Duration::us(1), limits::kMaxRunDuration, Duration::us(1));
  sc.warmup = r.duration("warmup_us", Duration::ms(10), Duration::zero(), limits::kMaxRunDuration, Duration::us(1));
  sc.warmup_covers_policy = r.boolean("warmup_covers_policy", true);
  sc.warmup_covers_drive_state = r.boolean("warmup_covers_drive_state", true);
  sc.io_queues = r.u32("io_queues", 0, 0, 65535);
  sc.queue_depth = r.u32("queue_depth", 1024, 2, 65536);
  if (err) return err;
  if (!r.has("host")) return InputError{"/host", "missing: a host profile (file name or object)"};
  sc.host = read_host(r.at("host"), "/host", err);
  if (err) return err;
  // The kernel's intremap= boot option: how this run takes the platform's interrupts.
  if (r.has("intremap")) {
    const std::string mode = r.string("intremap", "");
    if (err) return err;
    if (!sc.host.platform.active())
      return InputError{"/intremap", "the host profile has no platform (host platform.interrupt_remapping) to take it"};
    if (mode == "posted_msi") sc.host.platform.remapping = InterruptRemapping::posted;
    else if (mode == "remappable") sc.host.platform.remapping = InterruptRemapping::remappable;
    else return InputError{"/intremap", "must be \"remappable\" (the default mode) or \"posted_msi\", got \"" + mode + "\""};
  }
  if (auto e = read_drives(r, base_dir, sc, err)) return e;
  if (r.has("policy")) {
    if (auto e = read_policy(r.at("policy"), sc, err)) return e;
  }
  if (auto e = read_jobs(r, sc, err)) return e;
  cover_drive_state(sc);
  cover_first_decision(sc);
  if (r.has("published")) {
    if (auto e = check_published(r.at("published"))) return e;
  }
  r.reject_unknown({"host", "intremap", "drives", "policy", "jobs", "comment", "fio", "published"});
  if (err) return err;
  return check_jobs_fit_policy(sc);
}

// The fields of the document a fio job file gave, by JSON pointer, with the line each
// came from, for as long as they hold the file's value: an error the loader finds at one
// is named at its line (job.fio:4: option 'iodepth': ...), not at a JSON path the user
// never wrote. An override that sets the field, or anything around or inside it, makes
// the JSON path the right name again.
class FioOrigins {
 public:
  // A bare job file: its errors are named file:line.
  void from_file(const std::map<std::string, FioSource>& sources, const json& patch) { take(sources, patch, false); }
  // A job file a scenario names ("fio"): named under /fio, as its conversion errors are.
  void from_reference(const std::map<std::string, FioSource>& sources, const json& patch) { take(sources, patch, true); }
  // An override set the value at JSON pointer `at`.
  void overridden(const std::string& at) {
    std::erase_if(fields_, [&](const auto& f) { return overlaps(f.first, at); });
  }
  // `e`, named at the fio line of the field it is about, if a fio line gave that field.
  InputError name(const InputError& e) const {
    for (bool referenced : {false, true}) {
      std::map<std::string, FioSource> sources;
      for (const auto& [at, f] : fields_)
        if (f.referenced == referenced) sources.emplace(at, f.source);
      if (auto line = fio_line_error(e, sources)) return referenced ? InputError{"/fio", line->str()} : *line;
    }
    return e;
  }

 private:
  struct Field {
    FioSource source;
    bool referenced = false;
  };
  // A patch replaces the top-level values it sets ("jobs", "duration_us"), and with them
  // what an earlier file said about them.
  void take(const std::map<std::string, FioSource>& sources, const json& patch, bool referenced) {
    for (const auto& item : patch.items()) overridden("/" + item.key());
    for (const auto& [at, source] : sources) fields_[at] = Field{source, referenced};
  }
  // One pointer is the other, or inside it.
  static bool overlaps(const std::string& a, const std::string& b) {
    auto inside = [](const std::string& x, const std::string& p) {
      return x.size() > p.size() && x.compare(0, p.size(), p) == 0 && x[p.size()] == '/';
    };
    return a == b || inside(a, b) || inside(b, a);
  }
  std::map<std::string, Field> fields_;
};

// Applies the fio job file that doc["fio"] names, unless it is the one in `applied`.
std::optional<InputError> apply_fio_reference(json& doc, const std::string& base_dir, json& applied,
                                              FioOrigins& origins) {
  if (!doc.contains("fio") || doc["fio"] == applied) return std::nullopt;
  if (!doc["fio"].is_string()) return InputError{"/fio", "must be the file name of a fio job file"};
  auto jobs = fio_file_to_scenario(resolve(base_dir, doc["fio"].get<std::string>()).string());
  if (auto* e = std::get_if<InputError>(&jobs)) return InputError{"/fio", e->str()};
  const FioConversion& c = std::get<FioConversion>(jobs);
  for (auto& [k, v] : c.patch.items()) doc[k] = v;
  origins.from_reference(c.sources, c.patch);
  applied = doc["fio"];
  return std::nullopt;
}


std::optional<InputError> apply_override_at(json& doc, const std::string& assignment, std::string& at);

LoadResult finish_load(json doc, const LoadOptions& opts, const std::string& base_dir, FioOrigins origins = {}) {
  std::optional<InputError> err;
  if (!doc.is_object()) return InputError{"/", "a scenario must be a JSON object"};
  // Documents from files are limited while parsing; this covers those built elsewhere.
  if (json_depth_exceeds(doc, limits::kMaxJsonDepth))
    return InputError{"/", "nested deeper than " + std::to_string(limits::kMaxJsonDepth) + " levels"};
  // Checked before any profile is read: 10 000 drives would read 10 000 files first.
  if (doc.contains("drives") && doc["drives"].is_array() && doc["drives"].size() > limits::kMaxDrives)
    return InputError{"/drives", "at most " + std::to_string(limits::kMaxDrives) + " drives, got " + std::to_string(doc["drives"].size())};
  // fio job file referenced from a scenario: its jobs replace "jobs".
  json fio_applied;
  if (auto e = apply_fio_reference(doc, base_dir, fio_applied, origins)) return *e;
  // Profiles are inlined before the overrides (so host.cores=8 reaches into a profile
  // file) and again after them (so host=profiles/x.json names a file).
  inline_profiles(doc, base_dir, err);
  if (err) return *err;
  for (const auto& o : opts.overrides) {
    std::string at;
    if (auto e = apply_override_at(doc, o, at)) return *e;
    origins.overridden(at);
  }
  // --set fio=FILE names a job file too (its jobs replace those of the scenario).
  if (auto e = apply_fio_reference(doc, base_dir, fio_applied, origins)) return *e;
  inline_profiles(doc, base_dir, err);
  if (err) return *err;
  if (opts.seed) doc["seed"] = *opts.seed;
  // JSON text is UTF-8; other bytes would fail only when the results are written.
  // From here on an error about a value a fio line gave is named at that line.
  if (auto path = invalid_utf8_path(doc)) return origins.name(InputError{*path, "is not valid UTF-8 text"});
  LoadedScenario out;
  if (auto e = read_scenario(doc, base_dir, out.scenario)) return origins.name(*e);
  // The profiles are objects now (read_scenario read them).
  if (auto e = check_profile_ranges(doc["host"], "/host", out.warnings)) return *e;
  for (std::size_t i = 0; i < doc["drives"].size(); ++i) {
    const std::string dp = "/drives/" + std::to_string(i) + "/profile";
    if (auto e = check_profile_ranges(doc["drives"][i]["profile"], dp, out.warnings)) return *e;
  }
  for (const InputError& w : jobs_deeper_than_queues(out.scenario)) out.warnings.push_back(origins.name(w).str());
  if (auto e = check_memory(out.scenario, opts.memory_limit, opts.recording)) return origins.name(*e);
  out.resolved = scenario_to_json(out.scenario);
  return out;
}

}  // namespace

std::optional<InputError> inline_profile_files(json& doc, const std::string& base_dir) {
  std::optional<InputError> err;
  inline_profiles(doc, base_dir, err);
  return err;
}

namespace {

// apply_override; `at` is the JSON pointer it set (array indexes as numbers: jobs.00 is /jobs/0).
std::optional<InputError> apply_override_at(json& doc, const std::string& assignment, std::string& at) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    return InputError{"", "override must be path=value, got \"" + assignment + "\""};
  std::string path = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  json value;
  auto parsed = parse_json_text(text);
  if (auto* e = std::get_if<JsonTextError>(&parsed)) {
    if (e->too_deep) return InputError{path, e->message};
    value = text;  // a bare word: a string
  } else {
    value = std::move(std::get<json>(parsed));
  }
  std::vector<std::string> parts = split_path(path);
  json* cur = &doc;
  std::string where;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p.empty()) return InputError{path, "empty path component"};
    bool last = i + 1 == parts.size();
    where += "/" + p;
    if (cur->is_array()) {
      std::size_t idx = 0;
      try {
        std::size_t used = 0;
        idx = std::stoul(p, &used);
        if (used != p.size()) throw std::invalid_argument(p);
      } catch (const std::exception&) {
        return InputError{where, "not an array index"};
      }
      if (idx >= cur->size()) return InputError{where, "index out of range (size " + std::to_string(cur->size()) + ")"};
      cur = &(*cur)[idx];
      at += "/" + std::to_string(idx);
    } else if (cur->is_object() || cur->is_null()) {
      if (!last && (!cur->contains(p) || (*cur)[p].is_null())) (*cur)[p] = json::object();
      cur = &(*cur)[p];
      at += "/" + json_pointer_token(p);
    } else {
      return InputError{where, "cannot descend into a " + std::string(cur->type_name())};
    }
  }
  *cur = std::move(value);
  return std::nullopt;
}

}  // namespace

std::optional<InputError> apply_override(json& doc, const std::string& assignment) {
  std::string at;
  return apply_override_at(doc, assignment, at);
}

LoadResult load_scenario_json(json doc, const LoadOptions& opts) {
  return finish_load(std::move(doc), opts, opts.base_dir.empty() ? default_scenarios_dir() : opts.base_dir);
}

LoadResult load_scenario_file(const std::string& path, const LoadOptions& opts) {
  fs::path p(path);
  std::string base = opts.base_dir.empty() ? p.parent_path().string() : opts.base_dir;
  if (base.empty()) base = ".";
  std::string ext = p.extension().string();
  if (ext == ".fio" || ext == ".ini" || ext == ".job") {
    // A bare fio job file runs on the default testbed.
    std::optional<InputError> err;
    auto doc = read_json_file(fs::path(default_scenarios_dir()) / "default.json", path, err);
    if (!doc) return *err;
    auto fio = fio_file_to_scenario(path);
    if (auto* e = std::get_if<InputError>(&fio)) return *e;
    const FioConversion& c = std::get<FioConversion>(fio);
    // Named for the job file, not the testbed it runs on (the summary's title and the
    // results' scenario.name said "default: policy A testbed ...").
    (*doc)["name"] = "fio job file " + p.filename().string() + " on the default testbed";
    (*doc)["comment"] = "nvmesim run " + path + ": the job file's jobs on scenarios/default.json's host and drives";
    for (auto& [k, v] : c.patch.items()) (*doc)[k] = v;
    FioOrigins origins;
    origins.from_file(c.sources, c.patch);
    return finish_load(std::move(*doc), opts, default_scenarios_dir(), std::move(origins));
  }
  std::optional<InputError> err;
  auto doc = read_json_file(p, "", err);
  if (!doc) return *err;
  return finish_load(std::move(*doc), opts, base);
}

}  // namespace nvmesim
