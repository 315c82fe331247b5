"""nvmesim: a deterministic discrete-event simulator of the Linux NVMe completion path.

Quick start::

    import nvmesim
    r = nvmesim.run("default", duration_us=2000, warmup_us=500, policy__name="poll")
    r.iops, r.latency(99), r.cores            # numbers and DataFrames
    df = nvmesim.sweep("default", {"jobs.*.iodepth": [32, 256],
                                   "policy.name": ["irq", "poll"]},
                       seeds=[1, 2], workers=2)
    nvmesim.plot.iops_p99(df, x="iodepth", hue="policy")

Scenarios are dicts, scenario JSON files, fio job files (run on the default testbed), or
the name of a shipped scenario. Overrides take the paths of ``nvmesim run --set``.
Errors in scenarios and overrides raise :class:`ScenarioError` with the JSON path.
"""

import pkgutil

# The pure-Python files live in the source tree and the compiled _core in the build
# tree; both directories are named nvmesim and on sys.path (see nvmesim.pth), and this
# joins them into one package.
__path__ = pkgutil.extend_path(__path__, __name__)

from .errors import ScenarioError  # noqa: E402

try:
    from . import _core  # noqa: E402,F401
except ImportError as exc:  # pragma: no cover - a set-up problem, not a code path
    raise ImportError(
        "nvmesim's compiled module nvmesim._core was not found. Build the project "
        "(cmake --build <build>) and install the path file "
        "(cmake --install <build> --component python), or put <build>/python on "
        f"PYTHONPATH. ({exc})"
    ) from exc

from ._scenario import default_scenarios_dir  # noqa: E402
from .result import Result  # noqa: E402
from ._run import load, run, schema  # noqa: E402
from ._sweep import METRIC_COLUMNS, sweep  # noqa: E402
from ._calibrate import calibrate  # noqa: E402
from ._latency_stages import latency_stages  # noqa: E402
# The function; its implementation is the package nvmesim.ab (python3 -m nvmesim.ab).
from .ab import ab, league  # noqa: E402
# nvmesim.tune is the function; its package is nvmesim.tune (python3 -m nvmesim.tune).
from .tune import tune  # noqa: E402

__all__ = [
    "METRIC_COLUMNS",
    "ab",
    "calibrate",
    "latency_stages",
    "league",
    "tune",
    "Result",
    "ScenarioError",
    "default_scenarios_dir",
    "load",
    "plot",
    "run",
    "schema",
    "sweep",
]


def __getattr__(name):
    # nvmesim.plot imports matplotlib: only when first used.
    if name == "plot":
        import importlib

        return importlib.import_module(".plot", __name__)
    raise AttributeError(f"module 'nvmesim' has no attribute {name!r}")
