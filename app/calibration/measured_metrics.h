// The metrics of a measurement, read from a results document (simulator or
// `"source": "hw"`) or a fio JSON output: the one reader of them, for calibrate here and
// for `nvmesim compare` through the Python binding (nvmesim._core.measured_metrics), so
// calibrate and compare agree on what a file says (docs/compare.md). What only compare
// needs (latency CDFs, utilisation, fio's several-job latency mixture) stays in Python.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "app/input/input_error.h"

namespace nvmesim {

// Metric name -> value. Names: iops, lat_p50, lat_p99, lat_p99.9, irqs_per_io,
// completions_per_irq, cpu_hardirq, cpu_softirq, cpu_irq_thread, cpu_app, cpu_kernel,
// cpu_busy (CPUs, summed over cores), and iops_ratio (a published change: the policy's
// IOPS over the baseline's).
using MetricValues = std::map<std::string, double>;

// Every metric name calibrate knows.
bool is_metric_name(const std::string& name);

// A results document's metrics. Pre: `doc` is an nvmesim-results/1 document.
MetricValues metrics_of_results(const nlohmann::json& doc);

// A fio JSON output's metrics: IOPS summed over jobs and directions; latency percentiles
// only from one job (or group_reporting), where fio gives them as they are; cpu_app,
// cpu_kernel, cpu_busy from usr_cpu/sys_cpu. The percentiles are lat_ns's (submit to
// reap, what the simulator measures) when fio wrote them (lat_percentiles=1), else
// clat_ns's (fio's default: from the submission's end); `latency_from` (when given) is
// set to the key read, or "" when no latency was read. An error names the JSON path
// under `where`.
std::optional<InputError> metrics_of_fio(const nlohmann::json& doc, const std::string& where, MetricValues& out,
                                         std::string* latency_from = nullptr);

// A measurement file's metrics and what it is: "sim" or "hw" (results) or "fio".
struct MeasuredMetrics {
  std::string source;
  MetricValues metrics;
  std::string latency_from;  // fio: "lat_ns" or "clat_ns" (metrics_of_fio), "" if none was read
  // The measurement's resolution, where the file says (calibrate's noise model,
  // app/calibration/measurement_noise.h): the I/Os counted in its window (0: not known), and the
  // histogram its latency percentiles come from ("nvmesim": sim::Histogram, "fio": fio's
  // FIO_IO_U_PLAT_BITS 6 buckets, "": not known).
  double ios = 0;
  std::string latency_histogram;
};

// Any document: its metrics, or an InputError naming the JSON path under `where` (a
// missing or non-numeric figure, or neither kind of document).
std::variant<MeasuredMetrics, InputError> read_measured_metrics(const nlohmann::json& doc, const std::string& where);

// Whether `doc` is fio's JSON output (has "fio version" and "jobs").
bool is_fio_json(const nlohmann::json& doc);

}  // namespace nvmesim
