// fio job files: the common options, with fio's meaning, turned into scenario JSON
// ("jobs", and "duration_us"/"warmup_us" from runtime/ramp_time). Anything else is an
// error naming the file, line and option: a silently ignored option would change what
// the user thinks was simulated.
//
// Options apply as fio applies them: in file order, so of two lines that set the same
// thing (an option given twice, aliases such as bs and blocksize, rwmixread and
// rwmixwrite) the later line wins; a job section starts from the [global] sections above
// it (a [global] below a job does not reach it) and its own lines come after those.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "app/input/input_error.h"

namespace nvmesim {

std::variant<nlohmann::json, InputError> fio_text_to_scenario_patch(const std::string& text,
                                                                     const std::string& file_name);
std::variant<nlohmann::json, InputError> fio_file_to_scenario_patch(const std::string& path);
// The drive index X of a fio filename "/dev/nvmeXnY", or nullopt for anything else.
std::optional<uint32_t> nvme_namespace_drive(const std::string& name);

}  // namespace nvmesim
