// fio's JSON output layout (`fio --output-format=json`) written from a results document
// (docs/results.md), so that scripts written for fio read simulator and hw results.
// docs/compare.md lists what maps to what and which fio keys we cannot know.
#pragma once

#include <nlohmann/json.hpp>

namespace nvmesim {

// The fio percentiles we can fill: the results' `latency_ns` percentiles. The file says so
// in each job's options ("percentile_list"), as fio's own output does when asked for these.
inline constexpr const char* kFioPercentileList = "50:90:99:99.9:99.99";

// One fio job per job clone (`results.jobs[]`: fio without group_reporting also reports
// each clone of numjobs as its own job). Direction by the job's rw: reads under "read",
// writes under "write", mixed jobs under "mixed" (fio's unified_rw_reporting=mixed: the
// results do not split a job by direction). Pre: `results` is an `nvmesim-results/1`
// document (simulator or hw).
nlohmann::json fio_json_of(const nlohmann::json& results);

}  // namespace nvmesim
