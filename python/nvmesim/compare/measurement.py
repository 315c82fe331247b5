"""One side of a comparison: the metrics, latency CDF and utilisation of a results
document (simulator or ``"source": "hw"``) or of a fio JSON output. The metrics come
from the C++ reader that calibrate uses (core_reader.py)."""

import json
from dataclasses import dataclass, field
from pathlib import Path

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


def _latency_cdf(doc, where):
    cdf = doc["aggregate"].get("latency_cdf")
    if not isinstance(cdf, list) or not cdf:
        raise CompareError(f"{where}/aggregate/latency_cdf: missing or empty")
    return LatencyCdf("binned", tuple((float(x), float(f)) for x, f in cdf))


def measurement_of(doc, path="(document)"):
    """A Measurement of a parsed document (results or fio JSON)."""
    where = str(path)
    if is_fio_json(doc):
        metrics, quantiles = read_fio_json(doc, where)
        return Measurement(where, "fio", metrics,
                           LatencyCdf("quantiles", tuple((v, p) for p, v in quantiles)))
    source, metrics = core_metrics(doc, where)  # "neither kind" is the C++ reader's error
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
    try:
        text = p.read_text()
    except OSError as exc:
        raise CompareError(f"{path}: cannot read ({exc.strerror})")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CompareError(f"{path}: not JSON (line {exc.lineno}: {exc.msg})")
    return measurement_of(doc, str(path))
