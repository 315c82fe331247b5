// The calibration spec (`nvmesim-calibrate/1`, scenarios/calibration.schema.json): the
// measured runs, which fit and which are held out, the profile parameters to fit with their
// bounds, and the fit's settings. docs/calibrating.md, "The spec".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/calibration/bounded_least_squares.h"
#include "app/calibration/measured_metrics.h"
#include "app/input/input_error.h"

namespace nvmesim {

struct CalibrationParameter {
  std::string path;        // as written: /host/irq_entry_ns, /drives/*/profile/read/mean_ns
  std::string slot;        // the profile it is in: /host, /drives/*/profile, /drives/0/profile
  std::string in_profile;  // its pointer inside that profile: /irq_entry_ns, /read/mean_ns
  ParamBound bound;
  bool integer = false;    // the profile holds an integer there: values are rounded
  // The physical range the profile documents for it ("ranges"), when it does: a fitted
  // value outside it is flagged (and fails `calibrate --strict-ranges`).
  std::optional<ParamBound> physical_range;
};

struct CalibrationRun {
  std::string name;
  bool fit = true;                 // false: held out, only predicted
  nlohmann::json scenario;         // profiles inlined
  std::string base_dir;            // of the scenario file (its relative paths)
  std::vector<std::string> sets;   // overrides, as --set takes them
  // iops_ratio: the scenario run with policy `ratio_policy` over the scenario's own policy.
  std::string ratio_policy;
  MetricValues measured;           // only the fitted metrics
  // A published range instead of a figure ("change_pct_range"): `measured` holds its middle,
  // and a held-out prediction is "inside" when its interval overlaps the range.
  std::map<std::string, std::pair<double, double>> measured_range;
  double noise = 0.02;             // stated relative measurement noise (app/calibration/measurement_noise.h)
  std::string source;              // what the measurement is, for the report and sources
  // What the measurement file says of its resolution (app/calibration/measurement_noise.h): the
  // histogram of its percentiles ("nvmesim", "fio", ""), the I/Os it counted, and its
  // IOPS and interrupts per I/O (0: not known), whether fitted or not.
  std::string latency_histogram;
  double measured_ios = 0, measured_iops = 0, measured_irqs_per_io = 0;
};

struct CalibrationSpec {
  std::string name;
  uint64_t seed = 1;               // every simulation of every evaluation (common random numbers)
  int starts = 4;                  // the profile's values, then Latin-hypercube points
  uint64_t start_seed = 1;
  double fd_step = 0.01;           // forward-difference step, a fraction of each range
  int max_evaluations = 120;       // per start
  double tolerance = 0.05;         // feasible: every fitting metric within this (relative)
  int neighbourhood = 16;          // sampled points around the best fit
  std::string fitted_on;           // the date written into sources; empty: today (UTC)
  std::vector<CalibrationParameter> parameters;
  std::vector<CalibrationRun> runs;
};

using CalibrationSpecResult = std::variant<CalibrationSpec, InputError>;

// Reads a spec file; relative paths in it are relative to its directory.
CalibrationSpecResult load_calibration_spec_file(const std::string& path);
// A spec given as a document, its relative paths relative to `base_dir`.
CalibrationSpecResult load_calibration_spec(const nlohmann::json& doc, const std::string& base_dir);

// A date of the calendar as YYYY-MM-DD (2026-02-28, not 2026-02-30 or 2026-13-01): what
// --date and fitted_on accept.
bool is_calendar_date(std::string_view text);

// The JSON pointers `path` stands for in `doc` ("*" expands over an array), each to a
// number when `numbers`; or why there are none.
std::variant<std::vector<std::string>, std::string> expand_parameter_path(const nlohmann::json& doc,
                                                                          const std::string& path, bool numbers = true);
// The pointers of a path already checked against `doc` (a parameter's or its profile's).
std::vector<std::string> parameter_pointers(const nlohmann::json& doc, const std::string& path);

}  // namespace nvmesim
