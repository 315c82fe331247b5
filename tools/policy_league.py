#!/usr/bin/env python3
"""The league tables of docs/policies.md: every policy against plain interrupts on the two
evaluation matrices, and issue 34's bar for the fourth policy, from `nvmesim ab` leagues.

One command regenerates them: it runs (or resumes: `nvmesim ab` keeps what is done) the
league of each matrix into DIR/<matrix>/ and writes the tables between the BEGIN/END
markers of docs/policies.md. A full run is ~10 min for policy_a_eval.json and about an hour
for multi_drive_eval.json on two cores; it is not a ctest (the verdicts are the product,
not a check of the code).

  usage: tools/policy_league.py --cli build/app/nvmesim [--out DIR] [--workers N] [--write]
                                [--rerun LABEL ...]
         tools/policy_league.py --from DIR [--write]     # tables from leagues already run

A league resumes by (case, arm, seed), whatever binary made the runs on disk. After a change
to one policy, `--rerun LABEL` (e.g. `--rerun measured`) drops that candidate's runs from DIR
first: only they run again (~13 min for both matrices with `measured`), the baseline's runs
come back from the other candidates' tables, and the other candidates' runs stay. A rerun
that was stopped resumes without --rerun (with it, it would drop what it ran again). When the
kept runs were made by another build, `nvmesim ab` warns so for each of their folders: that
is what a rerun of one candidate expects, as long as only its policy changed.
"""
import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "policies.md"
BEGIN = "<!-- BEGIN policy_league.py -->"
END = "<!-- END policy_league.py -->"
MATRICES = ["policy_a_eval", "multi_drive_eval"]
CANDIDATES = ["measured", "watermark", "rate", "coalesce_adaptive"]
FOURTH = "measured"
OTHERS = ["watermark", "rate", "coalesce_adaptive"]  # A, B, C
HIGH_LOAD_QD = 64  # "high-load reads": 4 KiB random reads at this depth per queue or deeper
LOW_QD = 4         # "low-QD latency cases": this depth or shallower


def run_league(cli, matrix, out, workers):
    cmd = [cli, "ab", str(ROOT / "scenarios" / "matrices" / f"{matrix}.json"), "--out", str(out),
           "--workers", str(workers), "--no-progress"]
    for c in CANDIDATES:
        cmd += ["--candidate", c]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def drop_runs(league_dir, labels):
    """Removes the runs of candidates `labels` from one matrix's league folder, and its
    league.csv (the "was run" mark of --from), so that the next league runs them again."""
    for label in labels:
        shutil.rmtree(Path(league_dir) / label, ignore_errors=True)
    (Path(league_dir) / "league.csv").unlink(missing_ok=True)


def fmt(x, digits=1):
    return "-" if pd.isna(x) else f"{x:+.{digits}f}"


def bar_rows(league_dir):
    """Issue 34's bar, per candidate: counts, the median gain over the cases where any of
    A/B/C is a confirmed improvement, IRQs per I/O on high-load reads, 128K and low-QD cases."""
    cases = {c: pd.read_csv(league_dir / c / "cases.csv").set_index("case") for c in CANDIDATES}
    any_gain = None
    for c in OTHERS:
        g = cases[c].verdict.eq("improvement")
        any_gain = g if any_gain is None else any_gain | g
    rows = []
    for c in CANDIDATES:
        d = cases[c]
        high = d[(d.rw == "randread") & (d.bs_bytes == 4096) & (d.iodepth >= HIGH_LOAD_QD)]
        big = d[d.bs_bytes >= 131072]
        low = d[(d.bs_bytes == 4096) & (d.iodepth <= LOW_QD)]
        changed = lambda x: int((x.verdict.isin(["improvement", "regression"]) | x.p99_regression).sum())
        rows.append({
            "policy": c,
            "improvements": int(d.verdict.eq("improvement").sum()),
            "throughput regressions": int(d.verdict.eq("regression").sum()),
            "p99 regressions": int(d.p99_regression.sum()),
            "median change where A/B/C gain (%)": fmt(d.change_pct[any_gain].median()),
            "IRQs per I/O, 4K reads QD>=64 (mean)": f"{high.irqs_per_io_candidate.mean():.5f}" if len(high) else "-",
            "128K cases changed": f"{changed(big)} of {len(big)}",
            "128K largest change (%)": fmt(big.change_pct.loc[big.change_pct.abs().idxmax()], 2)
            if big.change_pct.notna().any() else "-",
            "QD<=4 cases changed": f"{changed(low)} of {len(low)}",
        })
    return rows, int(any_gain.sum()), len(cases[FOURTH])


def markdown_table(rows):
    keys = list(rows[0])
    out = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    out += ["| " + " | ".join(str(r[k]) for k in keys) + " |" for r in rows]
    return out


def tables(out_dir):
    lines = [BEGIN, ""]
    for m in MATRICES:
        d = out_dir / m
        if not (d / "league.csv").exists():
            lines += [f"**{m}.json**: not run (`tools/policy_league.py` runs it).", ""]
            continue
        rows, n_gain, n = bar_rows(d)
        lines += [f"**{m}.json** ({n} cases, 5 seeds per arm, against `irq`; {n_gain} cases where A, B or C "
                  f"is a confirmed improvement):", ""]
        lines += markdown_table(rows)
        lines += [""]
    lines += ["Columns: confirmed verdicts as `nvmesim ab` gives them (docs/ab.md); the median change of IOPS "
              "over the cases where any of A (watermark), B (rate) or C (coalesce_adaptive) is a confirmed "
              f"improvement; IRQs per I/O on 4 KiB random reads at QD >= {HIGH_LOAD_QD}; a 128K or QD <= {LOW_QD} "
              "case is changed when its throughput verdict is an improvement or a regression, or its p99 a "
              "regression; the 128K case whose median paired change of IOPS is farthest from 0, whatever its "
              "verdict (too variable included), against issue 33's bar of +-1%.", "", END]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", help="nvmesim executable: run (or resume) the leagues")
    ap.add_argument("--from", dest="src", help="a folder with the leagues already run (DIR/<matrix>/)")
    ap.add_argument("--out", default="league", help="where the leagues run (default ./league)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--write", action="store_true", help="write the tables into docs/policies.md")
    ap.add_argument("--rerun", action="append", default=[], metavar="LABEL",
                    help=f"with --cli: run this candidate's cases again (one of {', '.join(CANDIDATES)})")
    args = ap.parse_args()
    if not args.cli and not args.src:
        ap.error("give --cli (run the leagues) or --from DIR (tables from leagues already run)")
    if args.rerun and not args.cli:
        ap.error("--rerun needs --cli (it runs the dropped candidate again)")
    for label in args.rerun:
        if label not in CANDIDATES:
            ap.error(f"--rerun {label}: not a candidate of the league ({', '.join(CANDIDATES)})")
    out = Path(args.src or args.out)
    if args.cli:
        for m in MATRICES:
            drop_runs(out / m, args.rerun)
            run_league(args.cli, m, out / m, args.workers)
    text = tables(out)
    if not args.write:
        sys.stdout.write(text)
        return 0
    page = PAGE.read_text()
    if BEGIN not in page or END not in page:
        sys.stderr.write(f"{PAGE}: no {BEGIN} ... {END} markers\n")
        return 2
    head, rest = page.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    PAGE.write_text(head + text.rstrip("\n") + tail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
