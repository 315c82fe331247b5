// What every nvmesim command shares: the exit statuses, the report of bad input, the
// checked flush of stdout, and the option values each parsed and range-checked once (the
// error names the option and its rule).
#pragma once

#include <cerrno>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "app/input/checked_number.h"
#include "app/input/input_error.h"
#include "app/input/input_limits.h"
#include "app/input/json_reader.h"
#include "app/report/report.h"
#include "app/results/output_file.h"

namespace nvmesim::cli {

inline constexpr int kExitInput = 2;
inline constexpr int kExitInternal = 1;

inline int input_error(const nvmesim::InputError& e) {
  std::cerr << "nvmesim: " << e.str() << "\n";
  return kExitInput;
}

// stdout is an output like any other: a failed write (a full disk, /dev/full, a closed
// pipe) is exit 1, never a silent success.
inline int finish_stdout(int code) {
  errno = 0;
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "nvmesim: " << nvmesim::cannot_write("stdout", errno) << "\n";
    return kExitInternal;
  }
  return code;
}

// ---- option values: parsed and range-checked once, the error names the option ----------

inline std::optional<uint64_t> parse_seed(const std::string& s) {
  return nvmesim::in_range_u64(nvmesim::parse_integral(s), 0, UINT64_MAX);
}

inline std::optional<uint64_t> parse_memory_limit(const std::string& s) {
  auto v = nvmesim::parse_size(s);
  if (!v || *v < (uint64_t{1} << 20) || *v > nvmesim::limits::kMaxMemoryLimitBytes) return std::nullopt;
  return v;
}

struct TraceWindow {
  int64_t from_us = -1, to_us = -1;
};

inline std::optional<TraceWindow> parse_trace_window(const std::string& s) {
  auto colon = s.find(':');
  if (colon == std::string::npos) return std::nullopt;
  // Within warm-up plus window at their longest: Time arithmetic stays far from overflow.
  const int64_t max_us = 2 * nvmesim::limits::kMaxRunDuration.count_ns() / 1000;
  auto from = nvmesim::in_range(nvmesim::parse_integral(s.substr(0, colon)), 0, max_us);
  auto to = nvmesim::in_range(nvmesim::parse_integral(s.substr(colon + 1)), 0, max_us);
  if (!from || !to || *to <= *from) return std::nullopt;
  return TraceWindow{*from, *to};
}

// A CLI11 check that runs `parse` and words its failure as `what`.
template <class Parse>
CLI::Validator checked(Parse parse, std::string what) {
  return CLI::Validator(
      [parse, what](std::string& s) -> std::string { return parse(s) ? "" : what + ", got '" + s + "'"; }, "", "");
}

inline std::optional<uint64_t> parse_threads(const std::string& s) {
  return nvmesim::in_range_u64(nvmesim::parse_integral(s), 1, 1024);
}
inline std::optional<uint64_t> parse_report_seeds(const std::string& s) {
  return nvmesim::in_range_u64(nvmesim::parse_integral(s), 1, nvmesim::kMaxReportSeeds);
}

inline const std::string kThreadsRule = "must be an integer from 1 to 1024";
inline const std::string kReportSeedsRule = "must be an integer from 1 to " + std::to_string(nvmesim::kMaxReportSeeds);
inline const std::string kSeedRule = "must be a non-negative integer up to 18446744073709551615";
inline const std::string kMemoryRule = "must be a size from 1m to 1024g (bytes, or with a k/m/g suffix)";
inline const std::string kFileRule = "must name a file";
inline const std::string kDateRule = "must be a calendar date YYYY-MM-DD";
inline bool is_file_name(const std::string& s) { return !s.empty(); }
// --replay-drive '' was taken as no --replay-drive at all.
inline const std::string kDriveRule = "must name a drive of the scenario";
inline bool is_drive_name(const std::string& s) { return !s.empty(); }

inline const std::string kWindowRule = "must be FROM_US:TO_US with 0 <= FROM < TO <= " +
                                std::to_string(2 * nvmesim::limits::kMaxRunDuration.count_ns() / 1000);

inline std::optional<uint64_t> parse_block_bytes(const std::string& s) {
  auto v = nvmesim::in_range_u64(nvmesim::parse_integral(s), 1, uint64_t{1} << 20);
  if (!v || (*v & (*v - 1)) != 0) return std::nullopt;
  return v;
}
inline const std::string kBlockRule = "must be a power of two from 1 to 1048576 bytes";

}  // namespace nvmesim::cli
