// Scenario loading: a JSON document (as text) or a file, plus "path=value" overrides and
// a seed, to a validated LoadedScenario. The interpreter lock is released while loading.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <pybind11/stl.h>

#include "app/input/json_text.h"
#include "app/scenario/scenario_load.h"
#include "python/bindings/bindings.h"

namespace nvmesim::python {
namespace {

LoadOptions make_options(std::string base_dir, std::vector<std::string> overrides,
                         std::optional<uint64_t> seed) {
  LoadOptions opts;
  opts.base_dir = std::move(base_dir);
  opts.overrides = std::move(overrides);
  opts.seed = seed;
  return opts;
}

LoadedScenario unwrap(LoadResult result) {
  if (auto* error = std::get_if<InputError>(&result)) raise_input_error(*error);
  return std::move(std::get<LoadedScenario>(result));
}

LoadedScenario load_file(const std::string& path, std::string base_dir,
                         std::vector<std::string> overrides, std::optional<uint64_t> seed) {
  LoadOptions opts = make_options(std::move(base_dir), std::move(overrides), seed);
  LoadResult result = [&] {
    py::gil_scoped_release release;
    return load_scenario_file(path, opts);
  }();
  return unwrap(std::move(result));
}

LoadedScenario load_json(const std::string& text, std::string base_dir,
                         std::vector<std::string> overrides, std::optional<uint64_t> seed) {
  // The CLI's parser: comments allowed, nesting bounded, duplicate keys and NUL bytes refused.
  auto parsed = parse_json_text(text);
  if (auto* e = std::get_if<JsonTextError>(&parsed)) raise_input_error(InputError{"", "scenario: " + e->message});
  nlohmann::json doc = std::move(std::get<nlohmann::json>(parsed));
  LoadOptions opts = make_options(std::move(base_dir), std::move(overrides), seed);
  LoadResult result = [&] {
    py::gil_scoped_release release;
    return load_scenario_json(std::move(doc), opts);
  }();
  return unwrap(std::move(result));
}

}  // namespace

void init_scenario(py::module_& m) {
  py::class_<LoadedScenario>(m, "LoadedScenario",
                             "A validated scenario, ready to run (see nvmesim.run).")
      .def_property_readonly(
          "resolved", [](const LoadedScenario& s) { return s.resolved.dump(); },
          "The fully resolved scenario as JSON text (profiles inlined, defaults filled).")
      .def_property_readonly(
          "name", [](const LoadedScenario& s) { return s.scenario.name; })
      .def_property_readonly(
          "seed", [](const LoadedScenario& s) { return s.scenario.seed; })
      .def("__repr__", [](const LoadedScenario& s) {
        return "<LoadedScenario '" + s.scenario.name +
               "' seed=" + std::to_string(s.scenario.seed) + ">";
      });

  m.def("load_file", &load_file, py::arg("path"), py::arg("base_dir") = std::string(),
        py::arg("overrides") = std::vector<std::string>(), py::arg("seed") = py::none(),
        "Loads a scenario JSON file or a fio job file; raises ScenarioError.");
  m.def("load_json", &load_json, py::arg("text"), py::arg("base_dir") = std::string(),
        py::arg("overrides") = std::vector<std::string>(), py::arg("seed") = py::none(),
        "Loads a scenario given as JSON text; raises ScenarioError.");
  m.def(
      "scenario_schema", [] { return scenario_schema().dump(); },
      "The JSON Schema of scenario files, as JSON text.");
  m.def("default_scenarios_dir", &default_scenarios_dir,
        "Directory holding the shipped scenarios and profiles.");
}

}  // namespace nvmesim::python
