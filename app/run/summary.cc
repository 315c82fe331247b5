#include "app/run/summary.h"

#include <cstdio>
#include <string>

namespace nvmesim {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string us(const nlohmann::json& ns) { return fmt("%.1f", ns.get<double>() / 1000.0); }
std::string kiops(double v) { return v >= 1e6 ? fmt("%.3fM", v / 1e6) : fmt("%.1fK", v / 1e3); }

void line(std::ostream& os, const std::string& label, const nlohmann::json& m) {
  const auto& l = m["latency_ns"];
  os << "  " << label << "  IOPS " << kiops(m["iops"].get<double>()) << "  " << fmt("%.2f", m["bytes_per_s"].get<double>() / 1e9)
     << " GB/s  lat us mean " << us(l["mean"]) << " p50 " << us(l["p50"]) << " p99 " << us(l["p99"]) << " p99.9 "
     << us(l["p99.9"]) << " max " << us(l["max"]) << "  IRQs/IO " << fmt("%.3f", m["irqs_per_io"].get<double>()) << "\n";
}

}  // namespace

void print_summary(std::ostream& os, const nlohmann::json& r) {
  const auto& sc = r["scenario"];
  os << sc["name"].get<std::string>() << "  (policy " << sc["policy"]["name"].get<std::string>() << ", seed "
     << r["seed"] << ", " << fmt("%.1f", r["window_ns"].get<double>() / 1e6) << " ms measured)\n";
  line(os, "all     ", r["aggregate"]);
  const auto& irq = r["aggregate"]["interrupts"];
  os << "  interrupts: " << irq["total"] << " (useful " << irq["useful"] << ", spurious " << irq["spurious"]
     << ", masked lazily " << irq["masked_lazily"] << ")\n";
  // Drives that did nothing in the window (no job of the run targets them: a fio job file
  // on the default testbed) are named once, not given a line of zeros each.
  std::string idle;
  std::size_t idle_count = 0;
  for (const auto& d : r["drives"]) {
    std::string name = d["name"].get<std::string>();
    if (d["ios"].get<uint64_t>() == 0 && d.value("device", nlohmann::json::object()).value("commands", uint64_t{0}) == 0) {
      idle += (idle.empty() ? "" : ", ") + name;
      ++idle_count;
      continue;
    }
    name.resize(8, ' ');
    line(os, name, d);
  }
  if (idle_count > 0) os << "  idle drive" << (idle_count > 1 ? "s" : "") << ": " << idle << "\n";
  os << "  cores (busy %: hardirq softirq irq_thread app):\n";
  for (const auto& c : r["cores"]) {
    const auto& f = c["fractions"];
    if (f["idle"].get<double>() > 0.999) continue;
    os << "    cpu" << c["core"] << fmt("  %5.1f", f["hardirq"].get<double>() * 100)
       << fmt(" %5.1f", f["softirq"].get<double>() * 100) << fmt(" %5.1f", f["irq_thread"].get<double>() * 100)
       << fmt(" %5.1f", f["app"].get<double>() * 100) << fmt("   idle %5.1f", f["idle"].get<double>() * 100) << "\n";
  }
  const auto& lim = r["limits"];
  os << "  bound by: " << lim["bound_by"].get<std::string>() << " (busiest core "
     << fmt("%.1f%%", lim["busiest_core_utilization"].get<double>() * 100) << ", busiest drive "
     << fmt("%.1f%%", lim["busiest_drive_utilization"].get<double>() * 100);
  if (lim.contains("busiest_remapping_unit_utilization"))
    os << ", busiest remapping unit " << fmt("%.1f%%", lim["busiest_remapping_unit_utilization"].get<double>() * 100)
       << ", busiest socket's interrupts " << fmt("%.1f%%", lim["busiest_socket_interrupts_utilization"].get<double>() * 100);
  os << ")\n";
  if (r.contains("warnings"))
    for (const auto& w : r["warnings"]) os << "  warning: " << w.get<std::string>() << "\n";
  if (r.contains("replay")) {  // nvmesim run --replay (docs/trace-format.md#replay)
    const auto& p = r["replay"];
    os << "  replay: " << p["commands"] << " commands (" << p["inflight"] << " inflight), " << p["matched"] << " matched, " << p["submitted_late"]
       << " submitted late";
    if (!p["drift"].is_null())
      os << "; |cqe_seen difference| p50 " << fmt("%.1f", p["cqe_seen_abs_diff_ns"]["p50"].get<double>() / 1e3)
         << " us, p99 " << fmt("%.1f", p["cqe_seen_abs_diff_ns"]["p99"].get<double>() / 1e3) << " us; drift "
         << fmt("%+.3f%%", p["drift"].get<double>() * 100);
    os << "\n";
    // The window's rates above include the time the trace has no commands for.
    if (p.contains("span") && p["span"].contains("iops") && !p["span"]["iops"].is_null()) {
      const auto& sp = p["span"];
      os << "  replay IOPS over the trace's span in the window (" << fmt("%.3f", sp["measured_from_ns"].get<double>() / 1e6)
         << " to " << fmt("%.3f", sp["measured_to_ns"].get<double>() / 1e6) << " ms): " << kiops(sp["iops"].get<double>());
      if (!sp["recorded_iops"].is_null()) os << " (recorded " << kiops(sp["recorded_iops"].get<double>()) << ")";
      os << "\n";
    }
  }
}

}  // namespace nvmesim
