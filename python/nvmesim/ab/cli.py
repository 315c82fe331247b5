"""The ``nvmesim ab`` command line (``python3 -m nvmesim.ab``).

Exit status: 0 done (report written, or --list), 2 bad matrix or options (the message
names the JSON path in the matrix), 130 interrupted (what ran is on disk: run the same
command again to resume), 1 any other error (a drive that cannot go on, a crash).
"""

import argparse
import sys

from .._figures import plural
from .._files import output_dir
from . import Limits, MatrixError, ab, load_matrix
from .league import candidate_arms, league

PROG = "nvmesim ab"


def _parser():
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Paired A/B evaluation of a candidate completion policy against a "
                    "baseline over a matrix of cases: both arms per case and seed, a verdict "
                    "per case (improvement, regression, no change, too variable), and a "
                    "Markdown/HTML report. Several candidates (the matrix's 'candidates', or "
                    "--candidate repeated) make a league: the baseline's runs are shared and "
                    "the report ranks them. Resumable: run the same command again after an "
                    "interruption. See docs/ab.md.")
    p.add_argument("matrix", metavar="MATRIX", help="A/B matrix JSON file "
                   "(e.g. scenarios/matrices/policy_a_eval.json)")
    p.add_argument("--list", action="store_true", help="print the cases without running them")
    p.add_argument("--candidate", action="append", metavar="POLICY[:P=V,...]",
                   help="a candidate in place of the matrix's (e.g. watermark or "
                        "rate:poll_period_ns=10000); repeated: a league of them")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, metavar="N",
                       help="local worker processes (default 1: this process)")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on a Dask cluster (tcp://host:8786); its workers must "
                            "`import nvmesim`")
    where.add_argument("--hw-device", metavar="BDF",
                       help="run the arms on this drive (bound to vfio-pci) with nvmesim-hw, "
                            "A B A B per case")
    p.add_argument("--hw-cli", metavar="PATH",
                   help="nvmesim-hw executable (default: $NVMESIM_HW_CLI, else on PATH)")
    p.add_argument("-o", "--out", metavar="DIR", type=output_dir,
                   help="output directory (default: ab-<matrix name>); resumes what is there")
    p.add_argument("--duration-us", type=int, metavar="US",
                   help="measured window of every run (default: the matrix's)")
    p.add_argument("--warmup-us", type=int, metavar="US",
                   help="warm-up of every run (default: the matrix's)")
    p.add_argument("--seeds", type=int, metavar="N", help="seeds per arm, 1..N (default: the matrix's)")
    d = Limits()
    lim = p.add_argument_group("verdict limits")
    lim.add_argument("--alpha", type=float, default=d.alpha,
                     help="permutation-test significance level (default %(default)s)")
    lim.add_argument("--confidence", type=float, default=d.confidence,
                     help="bootstrap confidence level (default %(default)s)")
    lim.add_argument("--threshold-min-pct", type=float, default=100 * d.threshold_min,
                     help="smallest material change, %% (default %(default)s)")
    lim.add_argument("--threshold-cv-factor", type=float, default=d.threshold_cv_factor,
                     help="threshold = max(threshold-min, this x baseline CV) (default %(default)s)")
    lim.add_argument("--cv-limit-pct", type=float, default=100 * d.cv_limit,
                     help="baseline CV above this, %%: too variable (default %(default)s)")
    lim.add_argument("--resamples", type=int, default=d.n_resamples,
                     help="bootstrap resamples (default %(default)s)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _list(spec, out, labels=None):
    axes = (["block"] if any("block" in c.labels for c in spec.cases) else []) + spec.axes
    rows = [[c.id] + [str(c.labels.get(a, "")) for a in axes] for c in spec.cases]
    head = ["case"] + axes
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    out.write("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip() + "\n")
    for row in rows:
        out.write("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() + "\n")
    arms = [spec.baseline["name"], *(labels or [spec.candidate["name"]])]
    runs = len(spec.cases) * len(spec.seeds) * len(arms)
    out.write(f"{plural(len(spec.cases), 'case')} x {plural(len(spec.seeds), 'seed')} x "
              f"{len(arms)} arms ({', '.join(arms)}) = {plural(runs, 'run')}\n")


def _league(args, limits, arms):
    """Runs a league (several candidates); the caller maps MatrixError and Ctrl-C."""
    client = None
    if args.scheduler:
        from distributed import Client

        client = Client(args.scheduler)
    try:
        result = league(args.matrix, out=args.out, candidates=args.candidate,
                        workers=args.workers, client=client, duration_us=args.duration_us,
                        warmup_us=args.warmup_us, seeds=args.seeds, limits=limits,
                        progress=not args.no_progress)
    finally:
        if client is not None:
            client.close()
    if result.interrupted:
        sys.stderr.write(f"{PROG}: interrupted; what ran is on disk in {result.directory}: run "
                         "the same command again to resume\n")
        return 130
    for line in result.summary:
        sys.stdout.write(f"{line}\n")
    sys.stdout.write(f"league: {result.directory / 'league.md'}, {result.directory / 'league.html'}; "
                     f"each candidate's own report in {result.directory}/<candidate>/\n")
    return 0


def main(argv=None):
    args = _parser().parse_args(argv)
    err = sys.stderr
    try:
        limits = Limits(alpha=args.alpha, confidence=args.confidence,
                        threshold_min=args.threshold_min_pct / 100,
                        threshold_cv_factor=args.threshold_cv_factor,
                        cv_limit=args.cv_limit_pct / 100, n_resamples=args.resamples)
    except ValueError as exc:
        err.write(f"{PROG}: {exc}\n")
        return 2
    if args.workers is not None and args.workers < 1:
        err.write(f"{PROG}: --workers: must be >= 1, got {args.workers}\n")
        return 2
    if args.seeds is not None and args.seeds < 1:
        err.write(f"{PROG}: --seeds: must be >= 1, got {args.seeds}\n")
        return 2
    try:
        arms = candidate_arms(args.matrix, args.candidate)
    except MatrixError as exc:  # before ValueError, which it is too
        err.write(f"{PROG}: {args.matrix}: {exc}\n")
        return 2
    except ValueError as exc:
        err.write(f"{PROG}: {exc}\n")
        return 2
    if len(arms) > 1 and args.hw_device:
        err.write(f"{PROG}: --hw-device runs one candidate against the baseline; this is a "
                  f"league of {len(arms)}\n")
        return 2
    try:
        if args.list:
            spec = load_matrix(args.matrix, duration_us=args.duration_us,
                               warmup_us=args.warmup_us, seeds=args.seeds, candidate=arms[0][1])
            _list(spec, sys.stdout, [label for label, _, _ in arms] if len(arms) > 1 else None)
            return 0
        if len(arms) > 1:
            return _league(args, limits, arms)
        client = None
        if args.scheduler:
            from distributed import Client

            client = Client(args.scheduler)
        try:
            result = ab(args.matrix, out=args.out, workers=args.workers, client=client,
                        duration_us=args.duration_us, warmup_us=args.warmup_us,
                        seeds=args.seeds, limits=limits, progress=not args.no_progress,
                        hw_device=args.hw_device, hw_cli=args.hw_cli,
                        candidate=arms[0][1] if args.candidate else None)
        finally:
            if client is not None:
                client.close()
    except MatrixError as exc:
        err.write(f"{PROG}: {args.matrix}: {exc}\n")
        return 2
    except KeyboardInterrupt:
        err.write(f"{PROG}: interrupted; run the same command again to resume\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - the command line's edge
        from .hw import HwError

        if isinstance(exc, HwError):
            err.write(f"{PROG}: {exc}; what ran is on disk, run again to resume\n")
            return 1
        raise
    if result.interrupted:
        err.write(f"{PROG}: interrupted with {plural(len(result.runs), 'run')} on disk in "
                  f"{result.directory}; run the same command again to resume\n")
        return 130
    for line in result.summary:
        sys.stdout.write(f"{line}\n")
    sys.stdout.write(f"report: {result.directory / 'report.md'}, "
                     f"{result.directory / 'report.html'}; runs: {result.directory / 'runs.csv'}\n")
    return 0
