// nvmesim calibrate from Python: the same spec loader and fitter as the CLI. The fit runs
// with the interpreter lock released; a bad spec raises ScenarioError with its JSON path.
#include <string>

#include <pybind11/stl.h>

#include "app/calibration/calibrate.h"
#include "app/calibration/calibration_report.h"
#include "app/calibration/calibration_spec.h"
#include "app/input/json_text.h"
#include "python/bindings/bindings.h"

namespace nvmesim::python {
namespace {

// Returns (report JSON text, fitted profiles JSON text by slot, report Markdown).
py::tuple calibrate_spec(const std::string& spec_text, const std::string& base_dir, const std::string& fitted_on) {
  auto doc = parse_json_text(spec_text);
  if (auto* e = std::get_if<JsonTextError>(&doc)) raise_input_error(InputError{"", e->message});
  auto loaded = load_calibration_spec(std::get<nlohmann::json>(doc), base_dir);
  if (auto* e = std::get_if<InputError>(&loaded)) raise_input_error(*e);
  const auto& spec = std::get<CalibrationSpec>(loaded);
  std::string date = !fitted_on.empty() ? fitted_on : !spec.fitted_on.empty() ? spec.fitted_on : utc_date_today();
  std::variant<CalibrationOutcome, InputError> result;
  {
    py::gil_scoped_release release;
    result = calibrate(spec, date);
  }
  if (auto* e = std::get_if<InputError>(&result)) raise_input_error(*e);
  const auto& out = std::get<CalibrationOutcome>(result);
  return py::make_tuple(out.report.dump(), out.profiles.dump(), calibration_report_markdown(out.report));
}

}  // namespace

void init_calibrate(py::module_& m) {
  m.def("calibrate", &calibrate_spec, py::arg("spec_text"), py::arg("base_dir"), py::arg("fitted_on") = "",
        "Fits a calibration spec (JSON text; relative paths against base_dir); returns (report JSON, "
        "fitted profiles JSON, report Markdown).");
}

}  // namespace nvmesim::python
