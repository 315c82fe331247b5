"""``nvmesim compare``: measured against simulated, metric by metric.

Measurements are nvmesim results documents (simulator or ``nvmesim-hw``) or fio JSON
outputs (``fio --output-format=json``, or ``nvmesim run --format fio-json``). See
docs/compare.md.

    from nvmesim.compare import compare
    c = compare("fio/qd32.json", "sim/qd32.json", out="cmp", fail_above={"iops.mape": 5})
    c.stats["all"]["iops"]["mape"], c.failed
"""

from .comparison import ACCEPTANCE, GROUPS, Comparison, check_bounds, checked_bounds, compare_pairs
from .errors import CompareError
from .measurement import METRICS, Measurement, load_measurement, measurement_of
from .report import summary_lines, write_report
from .spec import Pair, Spec, load_spec, spec_of_pair
from .stats import error_stats, ks_distance

__all__ = ["ACCEPTANCE", "GROUPS", "METRICS", "CompareError", "Comparison", "Measurement",
           "Pair", "Spec", "check_bounds", "checked_bounds", "compare", "compare_pairs", "error_stats",
           "ks_distance", "load_measurement", "load_spec", "measurement_of", "spec_of_pair",
           "summary_lines", "write_report"]


def compare(spec_or_measured, simulated=None, out=None, fail_above=None, fail_below=None):
    """Compares a spec file (one argument) or one measured/simulated pair of files.

    Bounds are ``{"METRIC.STAT": limit}`` (docs/compare.md) and add to the spec's own.
    Writes the report to ``out`` when given. Returns the Comparison (``.failed`` lists
    the bounds that failed). Raises CompareError (a ValueError) for bad input, a bound
    that is not a finite number included.
    """
    # Before any file is read: a bad bound is the caller's, named as its argument.
    fail_above = checked_bounds(fail_above, "fail_above")
    fail_below = checked_bounds(fail_below, "fail_below")
    spec = (load_spec(spec_or_measured) if simulated is None
            else spec_of_pair(spec_or_measured, simulated))
    c = compare_pairs(spec)
    check_bounds(c, {**spec.fail_above, **fail_above}, {**spec.fail_below, **fail_below})
    if out is not None:
        write_report(c, out)
    return c
