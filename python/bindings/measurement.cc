// The metrics of a measurement file as calibrate reads them (app/calibration/measured_metrics.h), for
// nvmesim.compare: one reader of results documents and fio JSON for both. A document that
// is neither, or lacks a figure, raises ScenarioError naming its JSON path.
#include <string>

#include <pybind11/stl.h>

#include "app/calibration/measured_metrics.h"
#include "app/input/json_text.h"
#include "python/bindings/bindings.h"

namespace nvmesim::python {
namespace {

// Returns (source: "sim", "hw" or "fio", {metric: value}).
py::tuple measured_metrics(const std::string& doc_text, const std::string& where) {
  auto doc = parse_json_text(doc_text);
  if (auto* e = std::get_if<JsonTextError>(&doc)) raise_input_error(InputError{where, e->message});
  auto read = read_measured_metrics(std::get<nlohmann::json>(doc), where);
  if (auto* e = std::get_if<InputError>(&read)) raise_input_error(*e);
  const auto& m = std::get<MeasuredMetrics>(read);
  return py::make_tuple(m.source, m.metrics);
}

}  // namespace

void init_measurement(py::module_& m) {
  m.def("measured_metrics", &measured_metrics, py::arg("doc_text"), py::arg("where"),
        "The metrics of a results document or fio JSON output (JSON text), as calibrate reads them; "
        "returns (source, {metric: value}). `where` prefixes the JSON paths of errors.");
}

}  // namespace nvmesim::python
