#!/usr/bin/python3
"""Regenerates the report screenshots the README shows, from short real runs:

* compare-report.png: `nvmesim compare` of seed 1 (as "measured") against seed 2 of the
  one-drive published scenario at five queue depths;
* ab-report.png: `nvmesim ab` of policy A against plain interrupts over eight cases of
  the shipped matrix (one drive, io_uring, 4K randread at six depths, 128K read at two),
  five seeds (the fewest that can reach p < 0.01), 2 ms windows.

Each report is rendered by headless Chromium at 1280 px (what python/tests/
test_report_rendering.py checks) and the top of the page is kept, in 256 colours.

    /usr/bin/python3 docs/images/make.py [--keep DIR]     # about a minute on 2 cores

Needs `import nvmesim` (bash .ci/setup) and Debian's chromium. `nvmesim report` prints
text, not a page: it has no screenshot.
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "python"))

import nvmesim  # noqa: E402
from nvmesim import _browser  # noqa: E402
from nvmesim.compare import compare  # noqa: E402

WIDTH = 1280


def compare_report(d):
    scenario = Path(nvmesim.default_scenarios_dir()) / "published" / "b_one_drive_qd32.json"
    pairs = []
    for qd in (1, 4, 8, 32, 128):
        for seed, side in ((1, "m"), (2, "s")):
            nvmesim.run(str(scenario), seed=seed, jobs__0__iodepth=qd, duration_us=10000,
                        warmup_us=2000).to_json(d / f"{side}{qd}.json")
        pairs.append({"name": f"QD {qd}", "measured": f"m{qd}.json", "simulated": f"s{qd}.json"})
    (d / "spec.json").write_text(json.dumps({
        "format": "nvmesim-compare/1", "name": "one drive, seed 1 against seed 2",
        "pairs": pairs}))
    compare(d / "spec.json", out=d / "compare")
    return d / "compare" / "report.html"


def ab_report(d):
    doc = json.loads((REPO / "scenarios" / "matrices" / "policy_a_eval.json").read_text())
    doc.update(seeds=5, duration_us=2000, warmup_us=500)
    doc["axes"] = [{"name": "drives", "drive_count": [1]},
                   {"name": "ioengine", "path": "/jobs/*/ioengine", "values": ["io_uring"]}]
    doc["blocks"] = [
        {"name": "4K random", "axes": [
            {"name": "workload", "values": [
                {"label": "4K randread", "set": {"/jobs/*/rw": "randread", "/jobs/*/bs": "4k"}}]},
            {"name": "iodepth", "path": "/jobs/*/iodepth", "values": [1, 4, 16, 32, 64, 1024]}]},
        {"name": "128K sequential", "axes": [
            {"name": "workload", "values": [
                {"label": "128K read", "set": {"/jobs/*/rw": "read", "/jobs/*/bs": "128k"}}]},
            {"name": "iodepth", "path": "/jobs/*/iodepth", "values": [4, 32]}]}]
    (d / "matrices").mkdir()
    (d / "profiles").symlink_to(REPO / "scenarios" / "profiles")
    matrix = d / "matrices" / "policy_a_short.json"
    matrix.write_text(json.dumps(doc, indent=1))
    nvmesim.ab(matrix, out=d / "ab", workers=2, progress=False)
    return d / "ab" / "report.html"


def shoot(page, png, height):
    """The page's first ``height`` pixels (less if it is shorter)."""
    from PIL import Image

    layout = _browser.measure(page, width=WIDTH)
    assert layout["scrollWidth"] <= WIDTH, f"{page} is {layout['scrollWidth']} px wide"
    height = min(height, layout["scrollHeight"])
    raw = png.with_suffix(".raw.png")
    _browser.screenshot(page, raw, width=WIDTH, height=height)
    with Image.open(raw) as image:
        image.convert("RGB").quantize(256).save(png, optimize=True)  # a third of the bytes
    raw.unlink()
    print(f"{png.relative_to(REPO)}: {WIDTH} x {height}, {png.stat().st_size // 1024} KiB")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="write the reports into DIR (default: a temporary one)")
    args = parser.parse_args(argv)
    if _browser.chromium() is None:
        sys.exit("make.py: no chromium (apt-get install --no-install-recommends chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(args.keep or tmp)
        d.mkdir(parents=True, exist_ok=True)
        (d / "runs").mkdir(exist_ok=True)
        shoot(compare_report(d / "runs"), HERE / "compare-report.png", 2200)
        shoot(ab_report(d), HERE / "ab-report.png", 2000)


if __name__ == "__main__":
    main()
