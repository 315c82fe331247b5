// The pieces of the nvmesim._core module, one init_<area> per file (module.cc joins them).
#pragma once

#include <pybind11/pybind11.h>

#include "app/input/input_error.h"

namespace nvmesim::python {

namespace py = pybind11;

void init_errors(py::module_& m);
void init_scenario(py::module_& m);
void init_run(py::module_& m);
void init_calibrate(py::module_& m);
void init_measurement(py::module_& m);

// The only place where an InputError becomes a Python exception: raises
// nvmesim.ScenarioError(path, message) (a ValueError).
[[noreturn]] void raise_input_error(const InputError& error);

}  // namespace nvmesim::python
