// The job sections of a scenario: each job read and checked against the host and drives
// read before it (a failure names its JSON path), the cross-checks with the policy, and
// the warning for jobs deeper than their queues.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/input/input_error.h"
#include "app/input/json_reader.h"
#include "vocab/scenario.h"

namespace nvmesim {

std::optional<InputError> read_jobs(JsonReader& r, Scenario& sc, std::optional<InputError>& err);
std::optional<InputError> check_jobs_fit_policy(const Scenario& sc);
// Legal but suspect: each job deeper than a queue it submits to, as a warning in an
// InputError's shape (its JSON path and the words), so that the loader names it at the
// fio line that gave the iodepth, as it names an error.
std::vector<InputError> jobs_deeper_than_queues(const Scenario& sc);

}  // namespace nvmesim
