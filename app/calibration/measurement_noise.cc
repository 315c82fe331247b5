#include "app/calibration/measurement_noise.h"

#include <cmath>
#include <cstdint>

#include "vocab/histogram.h"

namespace nvmesim {
namespace {

bool is_latency(const std::string& m) { return m == "lat_p50" || m == "lat_p99" || m == "lat_p99.9"; }
bool is_interrupt_metric(const std::string& m) {
  return m == "cpu_hardirq" || m == "irqs_per_io" || m == "completions_per_irq";
}
// Rates counted over the window. iops_ratio (a published change) has no count behind it
// that calibrate knows: its stated noise (at least the published range's half width) is all.
bool is_rate(const std::string& m) { return m == "iops" || m.rfind("cpu_", 0) == 0 || is_interrupt_metric(m); }

}  // namespace

double MetricNoise::total() const {
  return std::sqrt(stated * stated + sim_resolution * sim_resolution + measured_resolution * measured_resolution +
                   counting * counting);
}

double sim_histogram_resolution(double value_ns) {
  if (!(value_ns >= 1)) return 1.0;
  const auto v = static_cast<int64_t>(std::llround(value_ns));
  return static_cast<double>(sim::Histogram::bucket_width_at(v)) / value_ns;
}

double fio_histogram_resolution(double value_ns) {
  // fio's plat buckets (stat.h): exact below 2^7 (msb <= FIO_IO_U_PLAT_BITS), then each
  // [2^k, 2^(k+1)) cut into 64 buckets of 2^(k-6).
  if (!(value_ns >= 1)) return 1.0;
  const int msb = static_cast<int>(std::floor(std::log2(value_ns)));
  if (msb <= 6) return 1.0 / value_ns;
  return std::ldexp(1.0, msb - 6) / value_ns;
}

MetricNoise metric_noise(const std::string& metric, double value, const RunResolution& r) {
  MetricNoise n;
  n.stated = r.stated;
  if (is_latency(metric)) {
    n.sim_resolution = sim_histogram_resolution(value);
    if (r.latency_histogram == "nvmesim") n.measured_resolution = sim_histogram_resolution(value);
    else if (r.latency_histogram == "fio") n.measured_resolution = fio_histogram_resolution(value);
  } else if (is_rate(metric)) {
    // Events behind the rate: I/Os, or interrupts for the interrupt metrics when known.
    const double per_io = is_interrupt_metric(metric) && r.measured_irqs_per_io > 0 ? r.measured_irqs_per_io : 1.0;
    double var = 0;
    if (r.sim_ios > 0) var += 1.0 / (r.sim_ios * per_io);
    if (r.measured_ios > 0) var += 1.0 / (r.measured_ios * per_io);
    n.counting = std::sqrt(var);
  }
  return n;
}

}  // namespace nvmesim
