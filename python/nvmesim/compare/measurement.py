"""One side of a comparison: the metrics, latency CDF and utilisation of a results
document (simulator or ``"source": "hw"``) or of a fio JSON output. The metrics come
from the C++ reader that calibrate uses (core_reader.py)."""

import math
from dataclasses import dataclass, field
from pathlib import Path

from .._files import read_json
from .core_reader import core_metrics
from .errors import CompareError
from .fio_json import is_fio_json, read_fio_json

__all__ = ["LatencyCdf", "Measurement", "METRICS", "load_measurement", "measurement_of"]

#: The compared metrics, in report order: (key, label, unit).
METRICS = (
    ("iops", "IOPS", ""),
    ("lat_p50", "p50 latency", "ns"),
    ("lat_p99", "p99 latency", "ns"),
    ("lat_p99.9", "p99.9 latency", "ns"),
    ("irqs_per_io", "IRQs per I/O", ""),
    ("completions_per_irq", "completions per IRQ", ""),
    ("cpu_hardirq", "CPU hardirq", "CPUs"),
    ("cpu_softirq", "CPU softirq", "CPUs"),
    ("cpu_irq_thread", "CPU IRQ thread", "CPUs"),
    ("cpu_app", "CPU app", "CPUs"),
    ("cpu_kernel", "CPU kernel (hardirq+softirq+IRQ thread)", "CPUs"),
    ("cpu_busy", "CPU busy", "CPUs"),
)
METRIC_KEYS = tuple(k for k, _, _ in METRICS)


@dataclass(frozen=True)
class LatencyCdf:
    """``binned``: ``points`` are ``(latency_ns, cumulative fraction)`` of every non-empty
    histogram bucket (a results document's ``latency_cdf``). ``quantiles``: ``(latency_ns,
    fraction)`` at a few quantiles only (fio's percentiles)."""

    kind: str
    points: tuple


@dataclass
class Measurement:
    path: str
    source: str  # "sim", "hw" or "fio"
    metrics: dict
    cdf: LatencyCdf
    #: Busiest-resource utilisation in [0, ...], or None when the source cannot tell.
    utilization: float = None
    utilization_from: str = "unknown"
    extra: dict = field(default_factory=dict)


# The largest figure a measurement may give (IOPS, ns, CPUs): far above any real one, and
# far enough below a double's range that the statistics and the plots stay finite.
MAX_FIGURE = 1e15


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _latency_cdf(doc, where):
    """The CDF's points: [latency_ns, fraction] pairs, latencies from 0 to MAX_FIGURE and
    fractions from 0 to 1, neither decreasing."""
    at = f"{where}/aggregate/latency_cdf"
    cdf = doc["aggregate"].get("latency_cdf")
    if not isinstance(cdf, list) or not cdf:
        raise CompareError(f"{at}: missing or empty")
    points = []
    for i, point in enumerate(cdf):
        if not (isinstance(point, list) and len(point) == 2 and all(map(_number, point))):
            raise CompareError(f"{at}/{i}: must be [latency_ns, fraction], two numbers")
        x, f = float(point[0]), float(point[1])
        if not 0 <= x <= MAX_FIGURE or not 0 <= f <= 1:
            raise CompareError(f"{at}/{i}: latency must be from 0 to {MAX_FIGURE:g} ns and "
                               f"fraction from 0 to 1, got [{x:g}, {f:g}]")
        if points and (x < points[-1][0] or f < points[-1][1]):
            raise CompareError(f"{at}/{i}: latency and fraction must not decrease")
        points.append((x, f))
    return LatencyCdf("binned", tuple(points))


def _check_figures(metrics, where):
    # Every metric is a rate, a time, a ratio or a CPU count: a negative one (iops -5) is
    # no measurement, and was compared as one (a MAPE of 1e8 %).
    for key, v in metrics.items():
        if v is not None and not (_number(v) and 0 <= v <= MAX_FIGURE):
            raise CompareError(f"{where}: {key} = {v!r}: must be a finite number from 0 to "
                               f"{MAX_FIGURE:g}")


def measurement_of(doc, path="(document)"):
    """A Measurement of a parsed document (results or fio JSON)."""
    where = str(path)
    if is_fio_json(doc):
        metrics, quantiles = read_fio_json(doc, where)
        _check_figures(metrics, where)
        return Measurement(where, "fio", metrics,
                           LatencyCdf("quantiles", tuple((v, p) for p, v in quantiles)))
    source, metrics = core_metrics(doc, where)  # "neither kind" is the C++ reader's error
    _check_figures(metrics, where)
    cdf = _latency_cdf(doc, where)
    if source == "hw":
        # A host cannot see the drive's utilisation: the busiest core's (its contexts'
        # CPU time, which may exceed the window: the threads are not pinned).
        busy = [1.0 - float(c["fractions"]["idle"]) for c in doc["cores"]]
        return Measurement(where, "hw", metrics, cdf, max(busy, default=None), "hw cores")
    limits = doc.get("limits") or {}
    try:
        util = max(float(limits["busiest_core_utilization"]),
                   float(limits["busiest_drive_utilization"]))
    except (KeyError, TypeError, ValueError):
        raise CompareError(f"{where}/limits: busiest_core_utilization and "
                           "busiest_drive_utilization are needed")
    return Measurement(where, "sim", metrics, cdf, util, "sim limits")


def load_measurement(path):
    """Reads a results document or fio JSON output file."""
    p = Path(path)
    return measurement_of(read_json(p, lambda why: CompareError(f"{path}: {why}")), str(path))
