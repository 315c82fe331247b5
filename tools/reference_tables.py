#!/usr/bin/env python3
"""The reference pages' tables that come from running the simulator, made by running it.

- docs/calibration.md, `report`: the published rows against the simulator, the output of
  `nvmesim report scenarios/published --seeds 5` as it prints it (the seeds are in
  REPORT_SEEDS: policy B's rows need several).
- docs/performance.md, `figures`: what the benchmark's cases give that does not depend on
  the machine: simulated I/Os per run, events per simulated I/O and heap bytes per
  in-flight I/O (bench/sim_benchmark, one iteration of each case). Its speed figures are
  the machine's and are not generated.

Each table sits in its page between `<!-- BEGIN reference_tables.py NAME -->` and
`<!-- END reference_tables.py NAME -->`; everything between the markers is this script's.

  usage: tools/reference_tables.py --cli build/app/nvmesim --bench build/bench/sim_benchmark
             prints both tables
         ... --write           writes them into the pages (the report: 4-8 minutes on 2 cores)
         ... --check           exit 1 with a diff if a page differs (ctest `reference_tables`):
                               the figures whole, the report's every row but SLOW_ROWS (B's
                               fifteen drives) at the same seeds (a row depends on its own
                               scenario file only): about 30 s
         ... --check --full    the report's every row
         ... --only report|figures

Everything in the tables is deterministic: fixed seeds, simulated quantities only.
"""
import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = ROOT / "scenarios" / "published"
REPORT_SEEDS = 5
# The report's rows the cheap check leaves out: B's fifteen drives take ~35 s a seed of the
# report's ~38 (two cores); every other row takes under half a second.
SLOW_ROWS = ["b_fifteen_drives_qd32", "b_fifteen_drives_qd64", "b_fifteen_drives_qd128"]
# The benchmark's cases in the figures table, in its order, and what each one's heap case
# runs at (bench/sim_benchmark.cc: bytes_per_inflight_io). Not BM_PeersModel: its scenario
# is the workplace's (../shared/bench/peers), not the repository's.
FIGURE_CASES = [
    ("BM_DefaultScenario", "default scenario, 50 ms", "QD256 -> 512"),
    ("BM_OneDriveQD32", "one drive, QD32, 200 ms", "QD32 -> 64"),
    ("BM_DefaultScenarioPolled", "default scenario, `poll`, 50 ms", "QD256 -> 512"),
    ("BM_FifteenDrivesIrq", "fifteen drives, `irq`, 20 ms", "QD32 -> 64"),
    ("BM_FifteenDrivesRate", "fifteen drives, `rate`, 20 ms after 200 ms", None),
    ("BM_SixteenDrivesIrq", "sixteen drives, `irq`, 20 ms", "QD32 -> 64"),
]
PAGES = {"report": ROOT / "docs" / "calibration.md", "figures": ROOT / "docs" / "performance.md"}


def markers(name):
    return f"<!-- BEGIN reference_tables.py {name} -->", f"<!-- END reference_tables.py {name} -->"


def report(cli, files=None):
    """`nvmesim report` on the published rows (only `files`, by stem, if given)."""
    with tempfile.TemporaryDirectory(prefix="reference-tables-") as tmp:
        src = PUBLISHED
        if files is not None:
            src = Path(tmp)
            for f in files:
                (src / f"{f}.json").symlink_to(PUBLISHED / f"{f}.json")
        p = subprocess.run([cli, "report", str(src), "--seeds", str(REPORT_SEEDS)], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"reference_tables: nvmesim report: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def figures(bench):
    names = "|".join(c for c, _, _ in FIGURE_CASES)
    # One iteration of each case: every one takes longer than the minimum time.
    p = subprocess.run([bench, f"--benchmark_filter=^({names})$", "--benchmark_min_time=0.001",
                        "--benchmark_format=json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"reference_tables: sim_benchmark: exit {p.returncode}\n{p.stderr}")
    got = {b["name"]: b for b in json.loads(p.stdout)["benchmarks"]}
    lines = ["| case | what | simulated I/Os per run | events per I/O | bytes per in-flight I/O (heap case) |",
             "|---|---|---|---|---|"]
    for case, what, heap in FIGURE_CASES:
        b = got.get(case)
        if b is None or b.get("error_occurred"):
            raise SystemExit(f"reference_tables: sim_benchmark: {case} did not run")
        per_io = f"{b['bytes_per_inflight_io']:.0f} ({heap})" if heap else "—"
        lines.append(f"| `{case}` | {what} | {b['sim_ios']:,.0f} | {b['events_per_io']:.2f} | {per_io} |")
    return "\n".join(lines) + "\n"


def split_page(name):
    begin, end = markers(name)
    page = PAGES[name].read_text(encoding="utf-8")
    head, rest = page.split(begin + "\n", 1)
    old, tail = rest.split(end, 1)
    return head + begin + "\n", old, end + tail


def rows_and_frame(text):
    """A report's data rows by (table header, scenario), and its other lines in order."""
    rows, frame, header = {}, [], None
    for line in text.splitlines():
        if line.startswith("| scenario |"):
            header = line
        if line.startswith("| ") and not line.startswith("| scenario |") and header is not None:
            rows[(header, line.split(" | ")[0])] = line
        else:
            frame.append(line)
    return rows, frame


def check_rows(old, new):
    """The lines of `new` (a report of some rows) that the page's report `old` does not have."""
    old_rows, old_frame = rows_and_frame(old)
    new_rows, new_frame = rows_and_frame(new)
    bad = [] if new_frame == old_frame else ["the report's text around its rows differs"]
    for key, line in new_rows.items():
        if old_rows.get(key) != line:
            bad.append(f"page:   {old_rows.get(key, '(no such row)')}\nreport: {line}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="the nvmesim binary")
    ap.add_argument("--bench", help="the sim_benchmark binary (for `figures`)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true", help="write the tables into their pages")
    g.add_argument("--check", action="store_true", help="exit 1 if a page's table differs")
    ap.add_argument("--full", action="store_true", help="with --check: every row of the report")
    ap.add_argument("--only", choices=sorted(PAGES), action="append", help="this table only (repeatable)")
    a = ap.parse_args()
    names = a.only or list(PAGES)
    if "figures" in names and not a.bench:
        ap.error("`figures` needs --bench")
    failed = False
    for name in names:
        cheap = name == "report" and a.check and not a.full
        rows = sorted(p.stem for p in PUBLISHED.glob("*.json") if p.stem not in SLOW_ROWS) if cheap else None
        text = figures(a.bench) if name == "figures" else report(a.cli, rows)
        if not (a.write or a.check):
            sys.stdout.write(text + "\n")
            continue
        head, old, tail = split_page(name)
        page = os.path.relpath(PAGES[name], ROOT)
        if a.write:
            PAGES[name].write_text(head + text + tail, encoding="utf-8")
            continue
        if cheap:
            bad = check_rows(old, text)
            if bad:
                print(f"{page}: the report's rows but {', '.join(SLOW_ROWS)}, at {REPORT_SEEDS} seeds:\n" + "\n".join(bad))
        else:
            bad = old != text
            if bad:
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True), page,
                                                           "tools/reference_tables.py"))
        if bad:
            print(f"{page}'s `{name}` table is not what tools/reference_tables.py gives: run it with --write")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
