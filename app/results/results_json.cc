#include "app/results/results_json.h"

#include <cmath>

namespace nvmesim::results {
using nlohmann::json;

double frac(double x) { return std::round(x * 1e9) / 1e9; }

json latency_json(const sim::Histogram& h) {
  json j;
  j["mean"] = h.count() ? std::llround(h.mean()) : 0;
  for (const auto& p : kPercentiles) j[p.key] = h.quantile(p.q);
  j["max"] = h.max();
  return j;
}

json latency_cdf_json(const sim::Histogram& h) {
  json cdf = json::array();
  for (const auto& [v, p] : h.cdf()) cdf.push_back(json::array({v, frac(p)}));
  return cdf;
}

json metrics_json(uint64_t ios, uint64_t bytes, const sim::Histogram& lat, const Interrupts& irq, Duration window) {
  double secs = static_cast<double>(window.count_ns()) / 1e9;
  json m;
  m["ios"] = ios;
  m["iops"] = static_cast<double>(ios) / secs;
  m["bytes_per_s"] = static_cast<double>(bytes) / secs;
  m["latency_ns"] = latency_json(lat);
  m["interrupts"] = {{"useful", irq.useful}, {"spurious", irq.spurious},
                     {"masked_lazily", irq.masked_lazily}, {"total", irq.total()}};
  m["irqs_per_io"] = ios ? static_cast<double>(irq.total()) / static_cast<double>(ios) : 0.0;
  m["completions_per_irq"] = irq.total() ? json(static_cast<double>(ios) / static_cast<double>(irq.total())) : json(nullptr);
  return m;
}

json counters_json(const policy::QueueCounters& c) {
  json j = json::object();
  for (const auto& [name, field] : policy::QueueCounters::kFields) j[name] = c.*field;
  return j;
}

json mode_change_json(int64_t t_ns, std::string_view from, std::string_view to, std::string_view reason) {
  return {{"t_ns", t_ns}, {"from", from}, {"to", to}, {"reason", reason}};
}

}  // namespace nvmesim::results
