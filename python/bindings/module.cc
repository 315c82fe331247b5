// nvmesim._core: the C++ engine as seen from Python. The package nvmesim wraps it; use
// that, not this module, from user code.
#include "python/bindings/bindings.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "nvmesim C++ engine (use the nvmesim package, not this module directly)";
  nvmesim::python::init_errors(m);
  nvmesim::python::init_scenario(m);
  nvmesim::python::init_run(m);
  nvmesim::python::init_calibrate(m);
  nvmesim::python::init_measurement(m);
}
