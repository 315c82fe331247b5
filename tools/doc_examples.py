#!/usr/bin/env python3
"""The docs' worked examples, made by running them (ctest `docs_examples`).

Each example is a list of nvmesim commands, run in a fresh temporary directory in which
`scenarios` links to this repository's scenarios/, so the commands read exactly as a
reader would type them from the repository's root. Its blocks go into a page between

    <!-- example: NAME begin -->
    ...
    <!-- example: NAME end -->

(the markers stay; everything between them is this script's). Each example writes a
`NAME-commands` block, the commands it ran, and one or more output blocks: a command's
stdout or a file it wrote, verbatim. Nothing else is taken out or put in.

    doc_examples.py --write [--cli PATH]   run every example, rewrite the blocks in place
    doc_examples.py --check [--cli PATH]   run them, exit 1 with a unified diff if a block differs
    doc_examples.py --list                 the examples and their pages

The CLI is --cli, else $NVMESIM_CLI, else build/app/nvmesim. `nvmesim compare` and `ab`
are Python behind the CLI; the CLI finds its own build's package, so nothing needs to be
installed. --only NAME runs one example (repeatable). The examples run two at a time
(--jobs); the whole check is about a minute on two cores, most of it calibrate.

Everything shown must be deterministic: the simulator's seeds are fixed, calibrate's date
is the spec's `fitted_on`, and paths are relative to the temporary directory.
"""
import argparse
import concurrent.futures
import difflib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def fence(text, lang="text"):
    text = text if text.endswith("\n") else text + "\n"
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text}{ticks}\n"


class Run:
    """Runs nvmesim commands in one temporary directory and remembers them for the page."""

    def __init__(self, cli, workdir):
        self.cli, self.dir, self.shown = cli, Path(workdir), []
        (self.dir / "scenarios").symlink_to(REPO / "scenarios")

    def __call__(self, *args, show=True):
        if show:
            self.shown.append(" ".join(["nvmesim"] + [shlex.quote(a) for a in args]))
        p = subprocess.run([self.cli, *args], cwd=self.dir, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"nvmesim {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
        return p.stdout

    def mkdir(self, *names):
        self.shown.append("mkdir -p " + " ".join(names))
        for n in names:
            (self.dir / n).mkdir(parents=True, exist_ok=True)

    def write(self, name, text):
        (self.dir / name).parent.mkdir(parents=True, exist_ok=True)
        (self.dir / name).write_text(text, encoding="utf-8")

    def read(self, name):
        return (self.dir / name).read_text(encoding="utf-8")

    def commands(self):
        return fence("\n".join(self.shown), "sh")


# --- the examples: name -> (page, function(run) -> {block name: block text}) -------------

def calibrate_published(run):
    out = run("calibrate", "scenarios/calibration/published_testbed_a.json",
              "-o", "fitted-host.json", "--report", "calibration-report")
    # The report's Markdown on stdout is the same text as calibration-report/report.md.
    if out != run.read("calibration-report/report.md"):
        raise RuntimeError("calibrate: stdout differs from report.md")
    return {"calibrate-published-commands": run.commands(),
            "calibrate-published": fence(out, "md")}


COMPARE_DEPTHS = [8, 16, 32, 64]


def compare_noise_floor(run):
    spec = {"format": "nvmesim-compare/1",
            "name": "noise floor: boundary sweep libaio, seed 2 (as fio JSON) against seed 1",
            "pairs": [{"name": f"qd{q}", "measured": f"fio/qd{q}.json", "simulated": f"sim/qd{q}.json"}
                      for q in COMPARE_DEPTHS],
            "fail_above": {"iops.mape": 5}}
    run.mkdir("sim", "fio")
    for q in COMPARE_DEPTHS:
        scenario = f"scenarios/published/a3_boundary_qd{q}_libaio.json"
        run("run", scenario, "--seed", "1", "-q", "-o", f"sim/qd{q}.json")
        run("run", scenario, "--seed", "2", "-q", "--format", "fio-json", "-o", f"fio/qd{q}.json")
    spec_text = (json.dumps({k: v for k, v in spec.items() if k != "pairs"})[:-1]
                 + ',\n "pairs": [\n  ' + ",\n  ".join(json.dumps(p) for p in spec["pairs"])
                 + "]}\n")
    assert json.loads(spec_text) == spec
    run.write("noise-floor.json", spec_text)
    out = run("compare", "noise-floor.json", "-o", "compare-noise-floor")
    return {"compare-noise-floor-commands": run.commands(),
            "compare-noise-floor-spec": fence(spec_text, "json"),
            "compare-noise-floor": fence(out),
            "compare-noise-floor-report": fence(run.read("compare-noise-floor/report.md"), "md")}


def ab_example(run):
    matrix = "scenarios/matrices/policy_a_example.json"
    out = run("ab", matrix, "-o", "ab-policy-a-example", "--no-progress")
    return {"ab-example-commands": run.commands(),
            "ab-example": fence(out)}


EXAMPLES = {
    "calibrate-published": ("docs/calibrating.md", calibrate_published),
    "compare-noise-floor": ("docs/compare.md", compare_noise_floor),
    "ab-example": ("docs/ab.md", ab_example),
}

MARKER = re.compile(r"^<!-- example: (\S+) (begin|end) -->$")


def run_example(name, cli):
    with tempfile.TemporaryDirectory(prefix=f"doc-example-{name}-") as d:
        return EXAMPLES[name][1](Run(cli, d))


def replace_blocks(text, blocks, page):
    """The page with every block in `blocks` replaced; the names it found."""
    lines, out, found, inside = text.split("\n"), [], set(), None
    for n, line in enumerate(lines, 1):
        m = MARKER.match(line)
        if inside is None:
            out.append(line)
            if m and m.group(2) == "begin":
                inside = m.group(1)
                if inside in found:
                    raise SystemExit(f"{page}:{n}: example block {inside} appears twice")
                found.add(inside)
                if inside in blocks:
                    out.append(blocks[inside].rstrip("\n"))
            elif m:
                raise SystemExit(f"{page}:{n}: 'end' of {m.group(1)} without its 'begin'")
        else:
            if m and m.group(2) == "end" and m.group(1) == inside:
                out.append(line)
                inside = None
            elif m:
                raise SystemExit(f"{page}:{n}: example marker inside block {inside}")
            elif inside not in blocks:
                out.append(line)   # a block of an example not run this time: kept as it is
    if inside is not None:
        raise SystemExit(f"{page}: block {inside} has no end marker")
    return "\n".join(out), found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the blocks in place")
    mode.add_argument("--check", action="store_true", help="exit 1 with a diff if a block differs")
    mode.add_argument("--list", action="store_true", help="list the examples")
    ap.add_argument("--cli", help="nvmesim executable (default: $NVMESIM_CLI, else build/app/nvmesim)")
    ap.add_argument("--only", action="append", choices=sorted(EXAMPLES), help="run only this example")
    ap.add_argument("--jobs", type=int, default=2, help="examples run at once (default 2)")
    ap.add_argument("--repo", default=str(REPO), help="the pages' repository (default: this script's)")
    args = ap.parse_args(argv)

    if args.list:
        for name, (page, _) in EXAMPLES.items():
            print(f"{name}\t{page}")
        return 0
    cli = args.cli or os.environ.get("NVMESIM_CLI") or str(REPO / "build/app/nvmesim")
    if not os.access(cli, os.X_OK):
        print(f"doc_examples: {cli}: not an executable (give --cli or NVMESIM_CLI)", file=sys.stderr)
        return 2
    cli = str(Path(cli).resolve())
    names = args.only or list(EXAMPLES)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {n: pool.submit(run_example, n, cli) for n in names}
        results = {}
        for n in names:
            try:
                results[n] = futures[n].result()
            except RuntimeError as e:
                print(f"doc_examples: {n}: {e}", file=sys.stderr)
                return 1

    failed = False
    for page in sorted({EXAMPLES[n][0] for n in names}):
        blocks = {b: t for n in names if EXAMPLES[n][0] == page for b, t in results[n].items()}
        path = Path(args.repo) / page
        old = path.read_text(encoding="utf-8")
        new, found = replace_blocks(old, blocks, page)
        missing = sorted(set(blocks) - found)
        if missing:
            print(f"doc_examples: {page}: no markers for {', '.join(missing)}", file=sys.stderr)
            failed = True
        if new == old:
            continue
        if args.write:
            path.write_text(new, encoding="utf-8")
            print(f"doc_examples: rewrote {page}")
        else:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), f"{page} (in the repository)",
                f"{page} (as the examples print it now)"))
            print(f"doc_examples: {page} differs from its examples' output; "
                  f"run tools/doc_examples.py --write", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
