// Running a loaded scenario. The simulation runs with the interpreter lock released, so
// Python threads can run simulations side by side; the lock is taken back only to call
// the optional progress callback and to let Ctrl-C (a pending KeyboardInterrupt) stop
// the run.
#include <string>

#include <pybind11/stl.h>

#include "app/run/run.h"
#include "python/bindings/bindings.h"

namespace nvmesim::python {
namespace {

// Returns (results text, info) where the text is exactly what `nvmesim run -o` writes.
py::tuple run(const LoadedScenario& loaded, const py::object& progress, unsigned threads, bool check_invariants) {
  RunOptions opts;
  opts.threads = threads;
  opts.check_invariants = opts.check_invariants || check_invariants;  // always on in Debug builds
  // Captures a pointer, not the py::object: the std::function may be copied or destroyed
  // while the lock is released, and a Python reference must not be touched then.
  const py::object* callback = progress.is_none() ? nullptr : &progress;
  opts.progress = [callback](double fraction) {
    py::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (callback != nullptr) (*callback)(fraction);
  };
  RunInfo info;
  std::string text;
  {
    py::gil_scoped_release release;
    text = dump_results(run_scenario(loaded, opts, &info));
  }
  py::dict info_dict;
  info_dict["wall_seconds"] = info.wall_seconds;
  info_dict["events"] = info.events;
  info_dict["ios"] = info.ios;
  info_dict["partitions"] = info.partitions;
  info_dict["threads"] = info.threads;
  return py::make_tuple(text, info_dict);
}

}  // namespace

void init_run(py::module_& m) {
  m.def("run", &run, py::arg("loaded"), py::arg("progress") = py::none(), py::arg("threads") = 0u,
        py::arg("check_invariants") = false,
        "Runs a LoadedScenario; returns (results JSON text, info dict with wall_seconds, "
        "events, ios, partitions, threads). progress(fraction) is called now and then if given; "
        "threads (0: the machine's cores) simulate independent partitions side by side; "
        "check_invariants: fail (RuntimeError) when the results break an invariant of docs/results.md.");
}

}  // namespace nvmesim::python
