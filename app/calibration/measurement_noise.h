// calibrate's noise model (docs/calibrating.md, "Uncertainty"): how far a simulated
// metric may lie from its measurement when the parameters are right. Each residual
// ln(simulated / measured) is divided by
//   sigma = sqrt(stated^2 + resolution_sim^2 + resolution_measured^2 + counting^2)
// in log units (relative):
// - stated: the run's `noise` (the spec's, or a published range's half width);
// - resolution: a latency percentile is known to one bucket of the histogram it was read
//   from, the simulator's (sim::Histogram, <= 1/128 of the value) and the measurement's
//   where the file says which (the simulator's or nvmesim-hw's: the same; fio's: 1/64 to
//   1/128 of the value, FIO_IO_U_PLAT_BITS 6). One bucket counts as one standard deviation:
//   with common random numbers the simulated percentile is a step function of the
//   parameters, so a step of one bucket is not information;
// - counting: a rate (IOPS, CPU fractions, interrupts per I/O) counted over n events
//   carries 1/sqrt(n): the simulator's n (the measured IOPS times its window) and the
//   measurement's (the I/Os its file counted), where known. n counts interrupts for the
//   interrupt metrics when the measurement gives irqs_per_io.
// The weights are fixed before the fit, from the measured values: the cost is a sum of
// squares of the same weighted residuals at every parameter vector.
#pragma once

#include <string>

namespace nvmesim {

struct MetricNoise {
  double stated = 0, sim_resolution = 0, measured_resolution = 0, counting = 0;
  double total() const;  // the square root of the sum of squares
};

// What calibrate knows about one measured run's resolution.
struct RunResolution {
  double stated = 0.02;            // the run's noise
  std::string latency_histogram;   // "nvmesim", "fio", or "" (not known)
  double measured_ios = 0;         // I/Os the measurement counted (0: not known)
  double measured_irqs_per_io = 0; // 0: not known
  // I/Os the simulated run counts: the measured IOPS times its window (0: not known).
  double sim_ios = 0;
};

// The noise of `metric` measured at `value` (> 0).
MetricNoise metric_noise(const std::string& metric, double value, const RunResolution& r);

// The relative width of the latency bucket holding `value_ns`: the simulator's
// (sim::Histogram), or fio's.
double sim_histogram_resolution(double value_ns);
double fio_histogram_resolution(double value_ns);

}  // namespace nvmesim
