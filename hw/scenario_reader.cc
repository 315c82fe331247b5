#include "hw/scenario_reader.h"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace nvmesim::hw {

namespace {

using nlohmann::json;

// "4k", "128K", "1m" or a number of bytes.
uint32_t parse_size(const json& v, const std::string& where) {
  if (v.is_number_unsigned()) return v.get<uint32_t>();
  if (!v.is_string()) throw std::runtime_error(where + ": expected a size");
  std::string s = v.get<std::string>();
  size_t pos = 0;
  uint64_t n = std::stoull(s, &pos);
  std::string unit = s.substr(pos);
  if (unit == "k" || unit == "K") n <<= 10;
  else if (unit == "m" || unit == "M") n <<= 20;
  else if (!unit.empty()) throw std::runtime_error(where + ": unknown size unit '" + unit + "'");
  return uint32_t(n);
}

RwMode parse_rw(const std::string& s, const std::string& where) {
  if (s == "randread") return RwMode::randread;
  if (s == "randwrite") return RwMode::randwrite;
  if (s == "read") return RwMode::read;
  if (s == "write") return RwMode::write;
  if (s == "randrw") return RwMode::randrw;
  if (s == "rw" || s == "readwrite") return RwMode::rw;
  throw std::runtime_error(where + ": unknown rw mode '" + s + "'");
}

}  // namespace

Scenario read_scenario(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open scenario " + path);
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  Scenario sc;
  try {
    sc.name = j.value("name", path);
    sc.seed = j.value("seed", uint64_t(1));
    sc.duration = Duration::us(j.value("duration_us", int64_t(100000)));
    sc.warmup = Duration::us(j.value("warmup_us", int64_t(0)));
    sc.queue_depth = j.value("queue_depth", uint32_t(1024));
    sc.io_queues = j.value("io_queues", uint32_t(0));
    if (j.contains("policy")) {
      const json& p = j["policy"];
      sc.policy.name = p.value("name", std::string("irq"));
      if (p.contains("params"))
        for (const auto& [k, v] : p["params"].items()) sc.policy.params[k] = v.get<int64_t>();
    }
    if (!j.contains("jobs") || !j["jobs"].is_array() || j["jobs"].empty())
      throw std::runtime_error("no jobs");
    for (size_t i = 0; i < j["jobs"].size(); ++i) {
      const json& jj = j["jobs"][i];
      std::string where = path + ": jobs[" + std::to_string(i) + "]";
      JobSpec job;
      job.name = jj.value("name", "job" + std::to_string(i));
      job.rw = parse_rw(jj.value("rw", std::string("randread")), where);
      job.rwmixread = jj.value("rwmixread", uint32_t(50));
      if (jj.contains("bs")) job.bs = parse_size(jj["bs"], where + ".bs");
      job.iodepth = jj.value("iodepth", uint32_t(1));
      job.iodepth_batch_submit = jj.value("iodepth_batch_submit", uint32_t(1));
      job.numjobs = jj.value("numjobs", uint32_t(1));
      job.hipri = jj.value("hipri", false);
      if (job.iodepth == 0 || job.numjobs == 0 || job.bs == 0)
        throw std::runtime_error(where + ": iodepth, numjobs and bs must be positive");
      sc.jobs.push_back(job);
    }
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return sc;
}

}  // namespace nvmesim::hw
