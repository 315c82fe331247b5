"""The ``nvmesim tune`` command line (``python3 -m nvmesim.tune``).

Exit status: 0 done, 2 bad matrix, policy, range or option (the message says which), 130
interrupted (run the same command again to resume), 1 any other error.
"""

import argparse
import sys

from ..ab.matrix import MatrixError
from . import SAMPLERS, tune

PROG = "nvmesim tune"


def _parser():
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Searches a policy's parameters for the largest median gain with no "
                    "confirmed throughput or p99 regression, on the even-numbered half of an "
                    "A/B matrix's cases, then judges the best parameters once on the other "
                    "half. Resumable: run the same command again after an interruption. "
                    "See docs/tune.md.")
    p.add_argument("matrix", metavar="MATRIX", help="A/B matrix JSON file (its baseline is "
                   "the baseline; its candidate is replaced by --policy)")
    p.add_argument("--policy", required=True, metavar="NAME", help="the policy to tune")
    p.add_argument("--param", action="append", metavar="NAME=LO:HI", default=[],
                   help="an integer range to search (repeat for several parameters)")
    p.add_argument("--trials", type=int, default=20, metavar="N", help="trials in all (default %(default)s)")
    p.add_argument("--sampler", choices=SAMPLERS, default="tpe",
                   help="tpe: the trial value; nsga2: gain, p99 and CPU per I/O (default %(default)s)")
    p.add_argument("--seed", type=int, default=1, help="the sampler's seed (default %(default)s)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, metavar="N", help="local worker processes")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask cluster")
    p.add_argument("-o", "--out", metavar="DIR", help="output directory (default: "
                   "tune-<matrix name>-<policy>); resumes what is there")
    p.add_argument("--duration-us", type=int, metavar="US", help="measured window of every run")
    p.add_argument("--warmup-us", type=int, metavar="US", help="warm-up of every run")
    p.add_argument("--seeds", type=int, metavar="N", help="seeds per arm, 1..N")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    err = sys.stderr
    for name, value in (("--trials", args.trials), ("--workers", args.workers), ("--seeds", args.seeds)):
        if value is not None and value < 1:
            err.write(f"{PROG}: {name}: must be >= 1, got {value}\n")
            return 2
    if not args.param:
        err.write(f"{PROG}: give at least one --param NAME=LO:HI\n")
        return 2
    client = None
    try:
        if args.scheduler:
            from distributed import Client

            client = Client(args.scheduler)
        result = tune(args.matrix, args.policy, args.param, trials=args.trials, out=args.out,
                      sampler=args.sampler, seed=args.seed, workers=args.workers, client=client,
                      duration_us=args.duration_us, warmup_us=args.warmup_us, seeds=args.seeds,
                      progress=not args.no_progress)
    except MatrixError as exc:
        err.write(f"{PROG}: {args.matrix}: {exc}\n")
        return 2
    except ValueError as exc:
        err.write(f"{PROG}: {exc}\n")
        return 2
    except KeyboardInterrupt:
        err.write(f"{PROG}: interrupted; run the same command again to resume\n")
        return 130
    finally:
        if client is not None:
            client.close()
    if result.interrupted:
        err.write(f"{PROG}: interrupted; what ran is in {result.directory}: run the same command "
                  "again to resume\n")
        return 130
    for line in result.summary:
        sys.stdout.write(f"{line}\n")
    sys.stdout.write(f"best: {result.directory / 'best_policy.json'}; report: "
                     f"{result.directory / 'report.md'}\n")
    return 0
