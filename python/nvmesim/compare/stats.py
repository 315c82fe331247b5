"""Errors of simulated against measured figures, and the distance between latency CDFs."""

import numpy as np
from scipy import stats as sps

__all__ = ["error_stats", "ks_distance", "relative_error", "WITHIN"]

#: Within this relative error a point counts as "within 10%".
WITHIN = 0.10


def relative_error(measured, simulated):
    """(simulated - measured) / measured; None when measured is 0 or a side is missing."""
    if measured is None or simulated is None or measured == 0:
        return None
    return (simulated - measured) / measured


def error_stats(measured, simulated):
    """Statistics of one metric over paired points (lists, same order), errors in %:
    ``n``, ``mean_err`` (signed), ``mape`` (mean absolute), ``max_abs_err``,
    ``within_10pct`` (share of points, %), ``pearson_r`` (None below 3 points or when a
    side is constant: undefined)."""
    pairs = [(m, s) for m, s in zip(measured, simulated) if relative_error(m, s) is not None]
    if not pairs:
        return {"n": 0, "mean_err": None, "mape": None, "max_abs_err": None,
                "within_10pct": None, "pearson_r": None}
    m = np.array([p[0] for p in pairs], dtype=float)
    s = np.array([p[1] for p in pairs], dtype=float)
    err = (s - m) / m
    r = None
    if len(pairs) >= 3 and np.ptp(m) > 0 and np.ptp(s) > 0:
        r = float(sps.pearsonr(m, s).statistic)
    return {"n": len(pairs), "mean_err": 100 * float(err.mean()),
            "mape": 100 * float(np.abs(err).mean()),
            "max_abs_err": 100 * float(np.abs(err).max()),
            "within_10pct": 100 * float((np.abs(err) <= WITHIN + 1e-12).mean()),
            "pearson_r": r}


def _step(points, x, left=False):
    """A binned CDF at x: F(x) (right-continuous), or F(x-) with ``left``."""
    xs = np.array([p[0] for p in points])
    fs = np.array([p[1] for p in points])
    i = int(np.searchsorted(xs, x, side="left" if left else "right"))
    return 0.0 if i == 0 else float(fs[i - 1])


def ks_distance(a, b):
    """Kolmogorov-Smirnov distance between two latency CDFs (LatencyCdf), computed from
    the CDFs, not from samples (we have histograms and percentiles, not samples):

    * both binned: sup |F_a - F_b| over the union of their points, both as step
      functions. Both come from the same log-linear histogram buckets, so this is the KS
      distance of the two binned distributions.
    * one side known only at quantiles (fio's percentiles): at each known quantile
      (x_p, p), how far p lies outside [F(x_p-), F(x_p)] of the other side (0 when the
      other side also puts quantile p at x_p); the largest over the points. A lower bound
      of the KS distance: between the quantiles nothing is known.
    * both quantile-only: None (not computed).
    """
    if a.kind == "binned" and b.kind == "binned":
        xs = sorted({p[0] for p in a.points} | {p[0] for p in b.points})
        return max(abs(_step(a.points, x) - _step(b.points, x)) for x in xs)
    if a.kind == "quantiles" and b.kind == "quantiles":
        return None
    coarse, fine = (a, b) if a.kind == "quantiles" else (b, a)
    d = 0.0
    for x, p in coarse.points:
        lo, hi = _step(fine.points, x, left=True), _step(fine.points, x)
        d = max(d, lo - p if p < lo else (p - hi if p > hi else 0.0))
    return d
