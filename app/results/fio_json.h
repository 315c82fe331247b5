// fio's JSON output layout (`fio --output-format=json`, as fio 3.x's stat.c writes it)
// written from a run's record, so that scripts written for fio's output read the
// simulator's unchanged. docs/results.md ("fio-json") says what each key holds here;
// docs/compare.md what maps to what.
#pragma once

#include <nlohmann/json.hpp>

#include "app/results/run_record.h"

namespace nvmesim {

// fio's default percentile_list, in its order: the keys of every clat_ns / lat_ns
// "percentile" object (printf "%f" of each).
inline constexpr double kFioPercentiles[] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                             80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
// The fio version whose layout is written; "fio version" is this, marked as ours.
inline constexpr const char* kFioVersion = "fio-3.42-nvmesim";

// One fio job per job clone (fio without group_reporting also reports each clone of
// numjobs as its own job), each with fio's read, write, trim and sync sections. A job's
// reads and writes go to their own sections (a randrw job fills both); a record without
// that split (hw runs) puts a mixed job under "mixed" (fio's unified_rw_reporting=mixed).
// `replay`: the jobs submitted a trace's commands (an open loop: no iodepth_level).
// Its keys in fio's order (ordered_json).
nlohmann::ordered_json fio_json_of(const results::RunRecord& record, bool replay = false);

}  // namespace nvmesim
