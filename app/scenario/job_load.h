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
void warn_jobs_deeper_than_queues(const Scenario& sc, std::vector<std::string>& warnings);

}  // namespace nvmesim
