"""The ``nvmesim compare`` command line (``python3 -m nvmesim.compare``).

Exit status: 0 compared and every bound held, 1 a bound failed (the report is written),
2 bad input (a file, the spec or a bound; the message says which and where).
"""

import argparse
import math
import sys
from pathlib import Path

from .._files import output_dir
from . import ACCEPTANCE, CompareError, compare, summary_lines

PROG = "nvmesim compare"


def _parser():
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Measured against simulated, metric by metric: IOPS, p50/p99/p99.9 "
                    "latency, IRQs per I/O, completions per IRQ, CPU per context; signed and "
                    "absolute relative error, MAPE, Pearson r, share within 10%%, KS distance "
                    "of the latency CDFs; split by utilisation. Measured files: nvmesim "
                    "results (simulator or nvmesim-hw) or fio JSON. Writes report.md, "
                    "report.html, points.csv, summary.json. See docs/compare.md.")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="a compare spec (JSON, format nvmesim-compare/1), or MEASURED "
                        "SIMULATED: one pair of files")
    p.add_argument("-o", "--out", metavar="DIR", type=output_dir,
                   help="report directory (default: compare-<name>)")
    p.add_argument("--fail-above", action="append", default=[], metavar="METRIC.STAT=X",
                   help="exit 1 if the statistic over all points is above X, e.g. "
                        "iops.mape=5, lat_p99.max_abs_err=20, ks.max=0.1 (repeatable)")
    p.add_argument("--fail-below", action="append", default=[], metavar="METRIC.STAT=X",
                   help="exit 1 if the statistic is below X, e.g. iops.pearson_r=0.97, "
                        "iops.within_10pct=80 (repeatable)")
    p.add_argument("--acceptance", action="store_true",
                   help="add issue 11's acceptance bounds: IOPS MAPE <= 5, p50 MAPE <= 10, "
                        "p99 MAPE <= 20, KS max <= 0.10, IOPS r >= 0.97, IOPS within 10%% "
                        ">= 80%%")
    return p


def _bounds(items, option):
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        try:
            # nan, inf (and 1e400) make a bound that never fails: not a gate
            if not sep or not math.isfinite(float(value)):
                raise ValueError
            out[key.strip()] = float(value)
        except ValueError:
            raise CompareError(f"{option} {item!r}: expected METRIC.STAT=NUMBER, a finite number")
    return out


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    err = sys.stderr
    if len(args.files) > 2:
        parser.error("give one spec file, or MEASURED SIMULATED")
    try:
        above = _bounds(args.fail_above, "--fail-above")
        below = _bounds(args.fail_below, "--fail-below")
        if args.acceptance:
            above = {**ACCEPTANCE[0], **above}
            below = {**ACCEPTANCE[1], **below}
        name = Path(args.files[0]).stem
        out = args.out or f"compare-{name}"
        c = compare(*args.files, out=out, fail_above=above, fail_below=below)
    except CompareError as exc:
        err.write(f"{PROG}: {exc}\n")
        return 2
    for line in summary_lines(c):
        sys.stdout.write(f"{line}\n")
    sys.stdout.write(f"report: {Path(out) / 'report.md'}, {Path(out) / 'report.html'}\n")
    if c.failed:
        err.write(f"{PROG}: {len(c.failed)} bound(s) failed: "
                  + ", ".join(b["bound"] for b in c.failed) + "\n")
        return 1
    return 0
