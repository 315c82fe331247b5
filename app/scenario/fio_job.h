// fio job files: the common options, with fio's meaning, turned into scenario JSON
// ("jobs", and "duration_us"/"warmup_us" from runtime/ramp_time). Anything else is an
// error naming the file, line and option: a silently ignored option would change what
// the user thinks was simulated.
//
// Options apply as fio applies them: in file order, so of two lines that set the same
// thing (an option given twice, aliases such as bs and blocksize, rwmixread and
// rwmixwrite) the later line wins; a job section starts from the [global] sections above
// it (a [global] below a job does not reach it) and its own lines come after those. As in
// fio, a section is global when its name starts with "global" ([global_x] too).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "app/input/input_error.h"

namespace nvmesim {

// The file line a generated field came from, and the option as the file spells it there.
struct FioSource {
  std::string file;
  int line = 0;
  std::string option;
};
// A fio file converted: the scenario patch and, by JSON pointer ("/jobs/0/iodepth",
// "/duration_us"), the line each of its fields came from (fields the file did not set,
// such as a job's "name", have none).
struct FioConversion {
  nlohmann::json patch;
  std::map<std::string, FioSource> sources;
};

std::variant<FioConversion, InputError> fio_text_to_scenario(const std::string& text, const std::string& file_name);
std::variant<FioConversion, InputError> fio_file_to_scenario(const std::string& path);
// The same, the patch alone.
std::variant<nlohmann::json, InputError> fio_text_to_scenario_patch(const std::string& text,
                                                                     const std::string& file_name);
std::variant<nlohmann::json, InputError> fio_file_to_scenario_patch(const std::string& path);
// An error the scenario loader reports at `e.path`, named at the fio line that gave that
// field ("j.fio:4: option 'iodepth': must be >= 1, got 0") when `sources` has it (the field
// itself or an element of it, /jobs/0/drives/1 of filename's /jobs/0/drives); nullopt
// when the field did not come from a fio line.
std::optional<InputError> fio_line_error(const InputError& e, const std::map<std::string, FioSource>& sources);
// The drive index X of a fio filename "/dev/nvmeXnY", or nullopt for anything else.
std::optional<uint32_t> nvme_namespace_drive(const std::string& name);

}  // namespace nvmesim
