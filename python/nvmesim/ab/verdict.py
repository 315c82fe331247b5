"""The verdict on one paired case: improvement, regression, no change, or too variable.

Rules (issue 12), for a metric where higher is better (IOPS); for one where lower is
better (p99 latency) "improvement" and "regression" swap:

1. Baseline coefficient of variation above ``cv_limit``: too variable to say.
2. Permutation test on the difference of the arms' means, p < ``alpha``, and the
   bootstrap confidence interval of the relative change entirely above +threshold:
   improvement; entirely below -threshold: regression.
3. The interval entirely inside ±threshold: no material change.
4. Anything else (a significant change whose interval reaches inside the threshold, or a
   wide interval without significance): too variable to say.

The threshold is ``max(threshold_min, threshold_cv_factor x baseline CV)``.

The permutation test treats the two arms as independent samples (all C(2n, n) ways to
split the 2n runs, exact up to ``exact_limit``): with n paired seeds, a sign-flip test has
only 2^n arrangements, and with the default 5 seeds its smallest possible two-sided p is
2/32 = 0.0625, so it could never reach 0.01. The pairing is used where it helps, in the
bootstrap: it resamples seeds, keeping each seed's two runs together.
"""

import math
from dataclasses import dataclass

__all__ = ["Limits", "VERDICTS", "verdict"]

#: The verdicts, in report order.
VERDICTS = ("improvement", "regression", "no change", "too variable")


@dataclass(frozen=True)
class Limits:
    """Every limit of the verdict rules (the CLI's options of the same names)."""

    alpha: float = 0.01
    confidence: float = 0.95
    threshold_min: float = 0.02
    threshold_cv_factor: float = 2.0
    cv_limit: float = 0.05
    n_resamples: int = 9999
    exact_limit: int = 100_000
    random_seed: int = 12

    def __post_init__(self):
        checks = {
            "alpha": 0 < self.alpha < 1,
            "confidence": 0 < self.confidence < 1,
            "threshold_min": self.threshold_min >= 0,
            "threshold_cv_factor": self.threshold_cv_factor >= 0,
            "cv_limit": self.cv_limit > 0,
            "n_resamples": self.n_resamples >= 100,
        }
        for name, ok in checks.items():
            if not ok:
                raise ValueError(f"{name}: out of range ({getattr(self, name)!r})")


def _mean_diff(x, y, axis):
    import numpy as np

    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def _relative_change(cand, base, axis):
    import numpy as np

    return np.mean(cand, axis=axis) / np.mean(base, axis=axis) - 1.0


def _p_value(cand, base, limits):
    import numpy as np
    from scipy import stats

    if np.all(cand == cand[0]) and np.all(base == cand[0]):
        return 1.0  # every run the same: no arrangement differs
    n = len(cand)
    exact = math.comb(2 * n, n) <= limits.exact_limit
    result = stats.permutation_test(
        (cand, base), _mean_diff, permutation_type="independent", vectorized=True,
        n_resamples=np.inf if exact else limits.n_resamples, alternative="two-sided",
        random_state=limits.random_seed)
    return float(result.pvalue)


def _interval(cand, base, limits):
    import numpy as np
    from scipy import stats

    if np.all(cand / base == cand[0] / base[0]):
        value = float(cand[0] / base[0] - 1.0)  # every resample gives the same ratio
        return value, value
    result = stats.bootstrap(
        (cand, base), _relative_change, paired=True, vectorized=True,
        confidence_level=limits.confidence, n_resamples=limits.n_resamples,
        method="percentile", random_state=limits.random_seed)
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def verdict(baseline, candidate, limits=None, higher_is_better=True):
    """Classifies one case from its per-seed values (paired: same order in both).

    Returns a dict: ``verdict`` (one of :data:`VERDICTS`), ``reason``, ``n``,
    ``baseline_mean``, ``candidate_mean``, ``change`` (relative change of the means,
    candidate/baseline - 1), ``ci_low``, ``ci_high`` (its bootstrap interval),
    ``p_value``, ``baseline_cv`` and ``threshold``.
    """
    import numpy as np  # here, not at import: `import nvmesim` stays light

    limits = limits or Limits()
    base = np.asarray(baseline, dtype=float)
    cand = np.asarray(candidate, dtype=float)
    if base.shape != cand.shape or base.ndim != 1:
        raise ValueError("baseline and candidate must be 1-D and paired (same length)")
    out = {"n": int(len(base)), "baseline_mean": math.nan, "candidate_mean": math.nan,
           "change": math.nan, "ci_low": math.nan, "ci_high": math.nan, "p_value": math.nan,
           "baseline_cv": math.nan, "threshold": math.nan}
    finite = np.isfinite(base) & np.isfinite(cand)
    if len(base) < 2 or not finite.all():
        return {**out, "verdict": "too variable",
                "reason": f"{int(finite.sum())} complete seed pairs; need at least 2 and no failed run"}
    base_mean = float(np.mean(base))
    if base_mean <= 0:
        return {**out, "verdict": "too variable", "reason": "baseline mean is not positive"}
    cv = float(np.std(base, ddof=1) / base_mean)
    threshold = max(limits.threshold_min, limits.threshold_cv_factor * cv)
    low, high = _interval(cand, base, limits)
    out.update(baseline_mean=base_mean, candidate_mean=float(np.mean(cand)),
               change=float(np.mean(cand) / base_mean - 1.0), ci_low=low, ci_high=high,
               p_value=_p_value(cand, base, limits), baseline_cv=cv, threshold=threshold)
    ci = f"{100 * limits.confidence:g}% CI [{100 * low:+.2f}%, {100 * high:+.2f}%]"
    band = f"±{100 * threshold:.2f}%"
    if cv > limits.cv_limit:
        return {**out, "verdict": "too variable",
                "reason": f"baseline CV {100 * cv:.2f}% > {100 * limits.cv_limit:g}%"}
    significant = out["p_value"] < limits.alpha
    better, worse = ("improvement", "regression") if higher_is_better else \
        ("regression", "improvement")
    if significant and low > threshold:
        return {**out, "verdict": better, "reason": f"p={out['p_value']:.4f}, {ci} above +{band[1:]}"}
    if significant and high < -threshold:
        return {**out, "verdict": worse, "reason": f"p={out['p_value']:.4f}, {ci} below -{band[1:]}"}
    if -threshold <= low and high <= threshold:
        return {**out, "verdict": "no change", "reason": f"{ci} inside {band}"}
    why = "significant but " if significant else f"p={out['p_value']:.4f} >= {limits.alpha:g} and "
    return {**out, "verdict": "too variable", "reason": f"{why}{ci} crosses {band}"}
