"""fio's JSON output (``fio --output-format=json``) read as a measurement.

The keys are fio's (stat.c, ``show_thread_status_json``): ``jobs[]`` with ``read`` /
``write`` (or ``mixed`` under ``unified_rw_reporting=mixed``) objects carrying ``iops``,
``bw`` (KiB/s), ``clat_ns`` and ``lat_ns`` (``N``, ``min``, ``max``, ``mean``,
``percentile`` keyed ``"99.000000"``), and per job ``usr_cpu`` / ``sys_cpu`` in percent of
the job's runtime. Latency is read from ``lat_ns`` when it has percentiles (fio's
``lat_percentiles=1``: submit to reap, what the simulator measures), else from ``clat_ns``
(fio's default), as the C++ reader does.
``nvmesim run --format fio-json`` writes the same layout (app/results/fio_json.h).
"""

import numpy as np

from .core_reader import core_metrics
from .errors import CompareError

__all__ = ["is_fio_json", "read_fio_json"]

#: The directions a job's I/O is counted under (trim is not simulated).
DIRECTIONS = ("read", "write", "mixed")


def is_fio_json(doc):
    return isinstance(doc, dict) and "fio version" in doc and isinstance(doc.get("jobs"), list)


def _directions(job, where):
    """A job's non-empty direction objects."""
    out = []
    for d in DIRECTIONS:
        obj = job.get(d)
        if obj is None:
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("iops", 0), (int, float)):
            raise CompareError(f"{where}/{d}: not a fio direction object with a number 'iops'")
        if obj.get("total_ios", 0) or obj.get("iops", 0):
            out.append((d, obj))
    return out


def _latency_object(obj, where):
    """``(key, object)``: the direction's lat_ns when it has percentiles, else clat_ns."""
    lat = obj.get("lat_ns")
    if isinstance(lat, dict) and isinstance(lat.get("percentile"), dict) and lat["percentile"]:
        return "lat_ns", lat
    clat = obj.get("clat_ns")
    if not isinstance(clat, dict):
        raise CompareError(f"{where}/clat_ns: missing (fio 3.x writes clat_ns)")
    return "clat_ns", clat


def _quantile_points(clat, where, key="clat_ns"):
    """``[(fraction, latency_ns)]`` of a clat_ns (or lat_ns) object, sorted, with its min
    and max when fio knew them (min/max 0 = unknown)."""
    pct = clat.get("percentile")
    if not isinstance(pct, dict) or not pct:
        raise CompareError(f"{where}/{key}/percentile: missing; fio writes it unless "
                           "clat_percentiles=0 (run fio with percentiles on)")
    pts = []
    for p, value in pct.items():
        try:
            pts.append((float(p) / 100.0, float(value)))
        except (TypeError, ValueError):
            raise CompareError(f"{where}/{key}/percentile/{p}: not a percentile and a number")
    pts.sort()
    lo, hi = float(clat.get("min") or 0), float(clat.get("max") or 0)
    if lo > 0:
        pts.insert(0, (0.0, lo))
    if hi > 0:
        pts.append((1.0, hi))
    return pts


def _anchored(pts):
    """The points with F = 0 at the minimum, or at 0 ns when fio's min is unknown (a
    latency is never negative): the mixture then rises towards the first percentile
    instead of jumping there."""
    return pts if pts[0][0] == 0.0 else [(0.0, 0.0)] + pts


def _mixture_quantiles(parts, fractions):
    """Quantiles of the mixture of several latency distributions, each known at a few
    quantile points and taken as linear between them, weighted by its I/O count."""
    grid = np.unique(np.concatenate([[v for _, v in _anchored(pts)] for _, pts in parts]))
    total = sum(w for w, _ in parts)
    mix = np.zeros_like(grid)
    for w, pts in parts:
        pts = _anchored(pts)
        q = np.array([p for p, _ in pts])
        v = np.array([x for _, x in pts])
        mix += w / total * np.interp(grid, v, q, left=0.0, right=1.0)
    return [(p, float(np.interp(p, mix, grid))) for p in fractions]


def read_fio_json(doc, where="(fio json)"):
    """Metrics and latency quantiles of a fio JSON document (docs/compare.md). IOPS, CPU
    and one job's percentiles are the C++ reader's (core_reader.py, calibrate's too); the
    quantiles, and for several jobs their mixture's percentiles, are read here."""
    _, metrics = core_metrics(doc, where)
    parts = []  # (ios, quantile points) per job direction
    for i, job in enumerate(doc["jobs"]):
        jw = f"{where}/jobs/{i}"
        for d, obj in _directions(job, jw):
            key, lat = _latency_object(obj, f"{jw}/{d}")
            n = float(lat.get("N") or obj.get("total_ios") or 0)
            if n > 0:
                parts.append((n, _quantile_points(lat, f"{jw}/{d}", key)))
    if not parts:
        raise CompareError(f"{where}/jobs: no job did any read or write I/O")
    if len(parts) == 1:
        return metrics, parts[0][1]
    # Several jobs: fio gives no aggregate latency (and calibrate fits none); the mixture.
    known = sorted({p for _, pts in parts for p, _ in pts if 0 < p < 1})
    quantiles = _mixture_quantiles(parts, known)
    by_p = {round(p, 6): v for p, v in quantiles}
    for name, p in (("lat_p50", 0.5), ("lat_p99", 0.99), ("lat_p99.9", 0.999)):
        if round(p, 6) in by_p:
            metrics[name] = by_p[round(p, 6)]
    return metrics, quantiles
