#include "app/profile/device_profile_json.h"

#include <array>
#include <sstream>
#include <string_view>
#include <vector>

#include "app/input/input_file.h"
#include "app/input/input_limits.h"
#include "app/input/json_text.h"
#include "app/input/scenario_files.h"

namespace nvmesim {
using nlohmann::json;

namespace {

// Where an empirical CDF's points came from, to name a bad one: inline, at its JSON
// pointer (/drives/0/profile/read/cdf/3), or from a cdf_file, at the file's line
// (/drives/0/profile/read/cdf_file: cdf.csv:4), since the pointer of a point the document
// does not hold leads nowhere.
struct CdfSource {
  std::string path;              // the distribution's pointer
  std::string file;              // as cdf_file gave it; empty: inline "cdf"
  std::vector<int> lines;        // each point's line in the file
  nlohmann::json points = nlohmann::json::array();

  InputError at_point(std::size_t i, const std::string& msg) const {
    if (file.empty()) return InputError{path + "/cdf/" + std::to_string(i), msg};
    return InputError{path + "/cdf_file", file + ":" + std::to_string(lines[i]) + ": " + msg};
  }
  InputError at_whole(const std::string& msg) const {
    return file.empty() ? InputError{path + "/cdf", msg} : InputError{path + "/cdf_file", file + ": " + msg};
  }
};

// A CDF file's points: "probability,ns" lines, '#' comments and blank lines skipped;
// false (the reader failed at "cdf_file") when the file cannot be read or a line is not
// a point.
bool read_cdf_file(JsonReader& r, const std::string& base_dir, CdfSource& src) {
  const std::string& file = src.file;
  auto text = read_input_file(resolve_scenario_file(base_dir, file), limits::kMaxInputFileBytes);
  if (auto* why = std::get_if<FileError>(&text)) {
    r.fail("cdf_file", why->message);
    return false;
  }
  // A spreadsheet's CSV export starts with a UTF-8 byte-order mark: skipped, as a replay
  // trace's is (line 1 was "expected 'probability,ns'").
  std::string& body = std::get<0>(text);
  if (body.rfind("\xEF\xBB\xBF", 0) == 0) body.erase(0, 3);
  std::istringstream in(body);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    double p = 0;
    double t = 0;
    char comma = 0;
    if (!(ls >> p >> comma >> t) || comma != ',') {
      r.fail("cdf_file", file + ":" + std::to_string(lineno) + ": expected 'probability,ns'");
      return false;
    }
    if (ls >> std::ws; !ls.eof()) {  // "0.5,1000 junk", "0.5,1000,7": not a point
      r.fail("cdf_file", file + ":" + std::to_string(lineno) + ": expected 'probability,ns', then the line's end");
      return false;
    }
    src.points.push_back(json::array({p, t}));
    src.lines.push_back(lineno);
  }
  return true;
}

// The empirical CDF's points into d.cdf: probabilities rising strictly to 1.0, times not
// falling and within kMaxLatency; the first bad point is `err`. Written so that a NaN
// (a Python document can hold one) fails every test.
void read_cdf_points(const CdfSource& src, DistSpec& d, std::optional<InputError>& err) {
  const json& points = src.points;
  if (!points.is_array() || points.empty()) {
    err = src.at_whole(src.file.empty() ? "must be a non-empty array of [probability, ns]"
                                        : "no points: expected 'probability,ns' lines");
    return;
  }
  double last_p = 0, last_t = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& pt = points[i];
    if (!pt.is_array() || pt.size() != 2 || !pt[0].is_number() || !pt[1].is_number()) {
      err = src.at_point(i, "must be [probability, ns]");
      return;
    }
    double p = pt[0].get<double>(), t = pt[1].get<double>();
    if (!(p > last_p && p <= 1.0)) {
      err = src.at_point(i, "probabilities must increase strictly within (0, 1]");
      return;
    }
    // Checked as doubles before the conversion to integer ns.
    if (!(t >= last_t && t >= 0 && t <= static_cast<double>(kMaxLatency.count_ns()))) {
      err = src.at_point(i, "times must be >= 0, not decrease and be <= " + std::to_string(kMaxLatency.count_ns()) +
                                " ns, got " + json_excerpt(pt[1]));
      return;
    }
    d.cdf.emplace_back(p, Duration::ns(static_cast<int64_t>(t)));
    last_p = p;
    last_t = t;
  }
  if (last_p != 1.0) {
    const std::string msg = "the last probability must be 1.0";
    err = src.file.empty() ? src.at_whole(msg) : src.at_point(points.size() - 1, msg);
  }
}

// The distributions' parameters and the kinds that use each (indexed by DistSpec::Kind).
// One given to a kind that has no use for it is refused: sigma on a constant or
// exponential distribution was read and ignored, so the run was not what the file said.
struct DistParameter {
  const char* key;
  std::array<bool, 4> used_by;  // constant, exponential, lognormal, empirical
  const char* users;
};
constexpr DistParameter kDistParameters[] = {
    {"mean_ns", {true, true, true, false}, "constant, exponential and lognormal take it"},
    {"sigma", {false, false, true, false}, "only lognormal takes it"},
    {"cdf", {false, false, false, true}, "only empirical takes it"},
    {"cdf_file", {false, false, false, true}, "only empirical takes it"},
};
static_assert(static_cast<std::size_t>(DistSpec::Kind::empirical) == 3, "used_by follows DistSpec::Kind");

DistSpec read_dist(const json& j, const std::string& path, const std::string& base_dir,
                   std::optional<InputError>& err) {
  DistSpec d;
  JsonReader r(j, path, err);
  std::string kind = r.choice("dist", "lognormal", {"constant", "exponential", "lognormal", "empirical"});
  d.kind = kind == "constant" ? DistSpec::Kind::constant
         : kind == "exponential" ? DistSpec::Kind::exponential
         : kind == "lognormal" ? DistSpec::Kind::lognormal : DistSpec::Kind::empirical;
  for (const DistParameter& p : kDistParameters) {
    if (!r.ok() || !r.has(p.key) || p.used_by[static_cast<std::size_t>(d.kind)]) continue;
    // A sigma of 0 asks for no spread, which a constant or exponential has: resolved
    // documents written before 2026-12-05 carry one on every distribution, and load still.
    if (std::string_view(p.key) == "sigma" && j.at("sigma").is_number() && j.at("sigma").get<double>() == 0.0) continue;
    r.fail(p.key, "dist \"" + kind + "\" does not use " + p.key + " (" + p.users + ")");
  }
  if (!r.ok()) return d;
  if (d.kind != DistSpec::Kind::empirical) {
    d.mean = r.duration("mean_ns", Duration::us(70), Duration::ns(1), kMaxLatency, Duration::ns(1));
    if (d.kind == DistSpec::Kind::lognormal) d.sigma = r.number("sigma", 0.3, 0.0, 5.0);
    r.reject_unknown({"comment", "per_extra_4k_ns", "sigma"});  // sigma: lognormal's, or a 0 let through above
    return d;
  }
  // Empirical CDF: inline [[p, ns], ...] or a CSV file of "probability,ns" lines.
  CdfSource src{path, "", {}, json::array()};
  if (r.has("cdf") && r.has("cdf_file")) {
    r.fail("cdf_file", "give \"cdf\" or \"cdf_file\", not both: one of them would be ignored");
    return d;
  }
  if (r.has("cdf")) {
    src.points = r.at("cdf");
  } else if (r.has("cdf_file")) {
    src.file = r.string("cdf_file", "");
    if (!r.ok() || !read_cdf_file(r, base_dir, src)) return d;
  } else {
    r.fail("", "an empirical distribution needs \"cdf\" or \"cdf_file\"");
    return d;
  }
  r.string("cdf_file", "");
  r.reject_unknown({"cdf", "comment", "per_extra_4k_ns"});
  if (!r.ok()) return d;
  read_cdf_points(src, d, err);
  return d;
}

ServiceSpec read_service(const json& j, const std::string& path, const std::string& base_dir,
                         std::optional<InputError>& err) {
  ServiceSpec s;
  s.dist = read_dist(j, path, base_dir, err);
  if (!err && j.contains("per_extra_4k_ns")) {
    JsonReader r(j, path, err);
    s.per_extra_4k = r.duration("per_extra_4k_ns", Duration::zero(), Duration::zero(), kMaxLatency, Duration::ns(1));
  }
  return s;
}

}  // namespace

void read_device_services(JsonReader& r, DeviceProfile& d, const std::string& base_dir, std::optional<InputError>& err) {
  for (const char* op : {"read", "write"}) {
    if (!r.has(op)) {
      r.fail(op, "missing: the service-time distribution of " + std::string(op) + "s");
      return;
    }
    (std::string(op) == "read" ? d.read : d.write) = read_service(r.at(op), r.child(op), base_dir, err);
    if (err) return;
  }
}

void check_write_path(JsonReader& r, const DeviceProfile& d) {
  if (d.gc_pace_spread > 0 && d.gc_pace_phase_mib == 0)
    r.fail("gc_pace_phase_mib", "must be >= 1 with gc_pace_spread > 0 (" +
                                    (std::ostringstream() << d.gc_pace_spread).str() +
                                    "): a phase of collection at one pace lasts that much host data, got 0");
  if (d.initial_buffer_fill_min > d.initial_buffer_fill_max)
    r.fail("initial_buffer_fill_min", "must be <= initial_buffer_fill_max (" +
                                          (std::ostringstream() << d.initial_buffer_fill_max).str() + "), got " +
                                          (std::ostringstream() << d.initial_buffer_fill_min).str());
  if (!d.write_path()) return;
  const std::string on = " with the write path on (program_ns > 0)";
  if (d.media_read <= Duration::zero())
    r.fail("media_read_ns", "must be > 0" + on + ": programs and erases hold the flash targets reads wait for");
  else if (d.write_buffer_kib == 0)
    r.fail("write_buffer_kib", "must be >= 1" + on + ": writes are acknowledged from the buffer, got 0");
  else if (d.program_kib == 0)
    r.fail("program_kib", "must be >= 1" + on + ", got 0");
  else if (d.write_buffer_kib < d.program_kib)
    r.fail("write_buffer_kib", "must be >= program_kib (" + std::to_string(d.program_kib) + ")" + on + ", got " +
                                   std::to_string(d.write_buffer_kib));
  else if (d.block_kib < d.program_kib)
    r.fail("block_kib", "must be >= program_kib (" + std::to_string(d.program_kib) + ")" + on + ", got " +
                            std::to_string(d.block_kib));
  else if (d.state == DriveState::steady && (1 + d.over_provisioning) / d.utilization <= 1.001)
    r.fail("over_provisioning", "(1 + over_provisioning) / utilization must be > 1.001 in the steady state: with no "
                                "spare flash garbage collection never ends, got " + (std::ostringstream() << d.over_provisioning << " / " << d.utilization).str());
}

void check_completion_rounds(JsonReader& r, const DeviceProfile& d) {
  if (d.completion_round_max > 0 && d.completion_round <= Duration::zero())
    r.fail("completion_round_max", "must be 0 without completion_round_ns (0: each CQE is posted when its data is "
                                   "done, there are no rounds to cap), got " + std::to_string(d.completion_round_max));
}

json service_to_json(const ServiceSpec& s) {
  json j;
  switch (s.dist.kind) {
    case DistSpec::Kind::constant: j["dist"] = "constant"; break;
    case DistSpec::Kind::exponential: j["dist"] = "exponential"; break;
    case DistSpec::Kind::lognormal: j["dist"] = "lognormal"; break;
    case DistSpec::Kind::empirical: j["dist"] = "empirical"; break;
  }
  if (s.dist.kind == DistSpec::Kind::empirical) {
    json cdf = json::array();
    for (const auto& [p, t] : s.dist.cdf) cdf.push_back(json::array({p, t.count_ns()}));
    j["cdf"] = cdf;
  } else {
    j["mean_ns"] = s.dist.mean.count_ns();
    // Only a lognormal has one: the resolved document must load again (read_dist).
    if (s.dist.kind == DistSpec::Kind::lognormal) j["sigma"] = s.dist.sigma;
  }
  j["per_extra_4k_ns"] = s.per_extra_4k.count_ns();
  return j;
}

}  // namespace nvmesim
