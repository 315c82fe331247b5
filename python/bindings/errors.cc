// Errors: InputError -> nvmesim.ScenarioError. The exception class is defined in Python
// (nvmesim/errors.py) so that users can construct, pickle and subclass it like any other;
// this file looks it up when it raises, and holds no state of its own.
#include <string>

#include "python/bindings/bindings.h"

namespace nvmesim::python {

void raise_input_error(const InputError& error) {
  py::object cls = py::module_::import("nvmesim.errors").attr("ScenarioError");
  py::object exc = cls(error.path, error.message);
  PyErr_SetObject(cls.ptr(), exc.ptr());
  throw py::error_already_set();
}

void init_errors(py::module_& m) {
  m.def(
      "raise_input_error",
      [](const std::string& path, const std::string& message) {
        raise_input_error(InputError{path, message});
      },
      py::arg("path"), py::arg("message"),
      "Raises ScenarioError the way the engine does (for tests of the error edge).");
}

}  // namespace nvmesim::python
