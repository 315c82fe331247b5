"""Measured against simulated, metric by metric, over the pairs of a spec; split by
utilisation; checked against bounds."""

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from .errors import CompareError
from .measurement import METRIC_KEYS, load_measurement
from .stats import error_stats, ks_distance, relative_error

__all__ = ["ACCEPTANCE", "Comparison", "GROUPS", "SATURATED_ABOVE", "STATS", "check_bounds",
           "checked_bounds", "compare_pairs"]

#: A point whose measured utilisation is above this is "saturated".
SATURATED_ABOVE = 0.85
#: The utilisation groups, in report order; "all" holds every point.
GROUPS = ("all", "<=85%", "saturated", "unknown")
#: What a bound may name: METRIC.STAT, or ks.mean / ks.max.
STATS = ("mean_err", "mape", "max_abs_err", "within_10pct", "pearson_r")
KS_STATS = ("mean", "max")

#: Issue 11's acceptance on held-out points (``--acceptance``): (fail_above, fail_below).
ACCEPTANCE = (
    {"iops.mape": 5.0, "lat_p50.mape": 10.0, "lat_p99.mape": 20.0, "ks.max": 0.10},
    {"iops.pearson_r": 0.97, "iops.within_10pct": 80.0},
)


def _group(util):
    if util is None:
        return "unknown"
    return "<=85%" if util <= SATURATED_ABOVE else "saturated"


@dataclass
class Comparison:
    name: str
    points: list  # one dict per pair
    stats: dict  # group -> metric -> error_stats
    ks: dict  # group -> {"n", "mean", "max"}
    bounds: list = field(default_factory=list)  # check_bounds rows

    @property
    def failed(self):
        return [b for b in self.bounds if b["status"] == "FAIL"]


def _point(pair):
    m, s = load_measurement(pair.measured), load_measurement(pair.simulated)
    row = {"name": pair.name, "measured_path": str(pair.measured),
           "simulated_path": str(pair.simulated), "measured_source": m.source,
           "measured_utilization": m.utilization, "utilization_from": m.utilization_from,
           "simulated_utilization": s.utilization, "group": _group(m.utilization),
           "metrics": {}, "ks": ks_distance(m.cdf, s.cdf),
           "cdfs": (m.cdf, s.cdf)}
    for key in METRIC_KEYS:
        mv, sv = m.metrics.get(key), s.metrics.get(key)
        if mv is None or sv is None:
            continue  # a side does not have it (fio: no IRQ counts)
        err = relative_error(mv, sv)
        row["metrics"][key] = {"measured": mv, "simulated": sv,
                               "err": None if err is None else 100 * err}
    return row


def _ks_stats(points):
    ks = [p["ks"] for p in points if p["ks"] is not None]
    return {"n": len(ks), "mean": sum(ks) / len(ks) if ks else None,
            "max": max(ks) if ks else None}


def compare_pairs(spec):
    """Reads every pair of the spec and computes the statistics (no bounds)."""
    points = [_point(p) for p in spec.pairs]
    stats, ks = {}, {}
    for g in GROUPS:
        members = [p for p in points if g == "all" or p["group"] == g]
        if not members:
            continue
        stats[g] = {}
        for key in METRIC_KEYS:
            have = [p["metrics"][key] for p in members if key in p["metrics"]]
            if have:
                stats[g][key] = error_stats([h["measured"] for h in have],
                                            [h["simulated"] for h in have])
        ks[g] = _ks_stats(members)
    return Comparison(spec.name, points, stats, ks)


def _bound_value(comparison, key):
    metric, _, stat = key.rpartition(".")
    if metric == "ks":
        if stat not in KS_STATS:
            raise CompareError(f"bound {key!r}: ks takes {', '.join(KS_STATS)}")
        return comparison.ks["all"][stat]
    if metric not in METRIC_KEYS or stat not in STATS:
        raise CompareError(f"bound {key!r}: not METRIC.STAT with METRIC one of "
                           f"{', '.join(METRIC_KEYS)}, ks and STAT one of {', '.join(STATS)}")
    s = comparison.stats["all"].get(metric)
    return None if s is None else s[stat]


def _finite_number(x):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:  # an integer of 400 digits
        return False


def checked_bounds(bounds, name):
    """``bounds`` ({"METRIC.STAT": limit} or None) as a dict, or CompareError naming the
    argument and the bound: a nan or infinite limit is a gate that never fails (nan
    compares false, no statistic crosses inf), as ``--fail-above`` and a spec refuse."""
    if bounds is None:
        return {}
    if not isinstance(bounds, Mapping):
        raise CompareError(f"{name}: must be a dict of METRIC.STAT to a number, got "
                           f"{type(bounds).__name__}")
    for key, limit in bounds.items():
        if not isinstance(key, str):
            raise CompareError(f"{name}: bound {key!r}: must be a METRIC.STAT string")
        if not _finite_number(limit):
            raise CompareError(f"{name}[{key!r}]: must be a finite number, got {str(limit)[:40]}")
    return dict(bounds)


def check_bounds(comparison, fail_above=None, fail_below=None):
    """Checks bounds on the "all" group; a statistic that is undefined (Pearson r of
    fewer than 3 points, a metric a side does not have) is "n/a", not a failure."""
    rows = []
    for op, bounds in ((">", checked_bounds(fail_above, "fail_above")),
                       ("<", checked_bounds(fail_below, "fail_below"))):
        for key, limit in bounds.items():
            value = _bound_value(comparison, key)
            if value is None:
                status = "n/a"
            elif (value > limit) if op == ">" else (value < limit):
                status = "FAIL"
            else:
                status = "pass"
            rows.append({"bound": key, "fails_if": op, "limit": float(limit),
                         "value": value, "status": status})
    comparison.bounds = rows
    return rows
