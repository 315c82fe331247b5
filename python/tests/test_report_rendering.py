"""The HTML reports as a reader sees them: rendered by headless Chromium at a 1280 px
wide window, from short real runs (nvmesim compare of two seeds at three queue depths;
nvmesim ab of a six-case matrix).

Checked: nothing is wider than the window (the document, every table, every image), every
plot is a real, non-blank PNG, and the screenshot of each page is not blank either.

Without a Chromium these tests skip; with NVMESIM_REQUIRE_CHROMIUM=1 (CI: .ci/run) they
fail instead, so CI cannot pass without looking at the pages.
"""

import base64
import io
import json
import os
import re
import time
from pathlib import Path

import numpy as np
import pytest

import nvmesim
from nvmesim import _browser
from nvmesim.compare import compare
from policy_a_slice import policy_a_slice

REPO = Path(__file__).resolve().parents[2]
WIDTH = 1280


@pytest.fixture(scope="module")
def browser():
    path = _browser.chromium()
    if path is None:
        message = ("no headless Chromium (Debian: apt-get install --no-install-recommends "
                   "chromium; bash .ci/setup installs it)")
        if os.environ.get("NVMESIM_REQUIRE_CHROMIUM") == "1":
            pytest.fail(message + " and NVMESIM_REQUIRE_CHROMIUM=1")
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def compare_report(tmp_path_factory):
    """A compare report of seed 1 (measured) against seed 2 (simulated) of the one-drive
    published scenario at queue depths 1, 8, 32: 3 points, both utilisation groups."""
    d = tmp_path_factory.mktemp("compare")
    scenario = Path(nvmesim.default_scenarios_dir()) / "published" / "b_one_drive_qd32.json"
    pairs = []
    for qd in (1, 8, 32):
        for seed, side in ((1, "m"), (2, "s")):
            nvmesim.run(str(scenario), seed=seed, jobs__0__iodepth=qd, duration_us=5000,
                        warmup_us=1000).to_json(d / f"{side}{qd}.json")
        pairs.append({"name": f"QD {qd}", "measured": f"m{qd}.json", "simulated": f"s{qd}.json"})
    (d / "spec.json").write_text(json.dumps({"format": "nvmesim-compare/1", "name":
                                             "seed 1 against seed 2", "pairs": pairs}))
    compare(d / "spec.json", out=d / "report")
    return d / "report" / "report.html"


def _matrix(directory):
    """Six cases of the shipped policy A matrix: one drive, 4K randread at QD 1, 4, 64,
    1024 and 128K read at QD 4, 32; three seeds, 1 ms windows."""
    doc = policy_a_slice([1, 4, 64, 1024], [4, 32], seeds=3, duration_us=1000, warmup_us=300)
    (directory / "matrices").mkdir()
    (directory / "profiles").symlink_to(REPO / "scenarios" / "profiles")
    path = directory / "matrices" / "six.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture(scope="module")
def ab_report(tmp_path_factory):
    d = tmp_path_factory.mktemp("ab")
    result = nvmesim.ab(_matrix(d), out=d / "out", progress=False)
    assert len(result.cases) == 6
    return d / "out" / "report.html"


@pytest.fixture(scope="module")
def league_report(tmp_path_factory):
    """A league of three candidates on the six cases (its disagreement table is the
    widest: two columns per candidate)."""
    d = tmp_path_factory.mktemp("league")
    result = nvmesim.league(_matrix(d), out=d / "out", candidates=["watermark", "rate", "threaded"],
                            progress=False)
    assert len(result.table) == 3
    return d / "out" / "league.html"


def _embedded_pngs(page):
    text = Path(page).read_text()
    return [base64.b64decode(b) for b in re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)",
                                                     text)]


def _not_blank(png_bytes, what):
    """A PNG that shows something: more than one colour over a real share of its pixels."""
    import matplotlib.image

    pixels = matplotlib.image.imread(io.BytesIO(png_bytes), format="png")[..., :3]
    assert pixels.shape[0] > 100 and pixels.shape[1] > 100, (what, pixels.shape)
    background = np.median(pixels.reshape(-1, 3), axis=0)
    drawn = np.any(np.abs(pixels - background) > 0.1, axis=-1).mean()
    assert drawn > 0.01, f"{what}: only {drawn:.2%} of its pixels differ from the background"
    assert pixels.std() > 0.02, f"{what}: nearly uniform (std {pixels.std():.3f})"
    return pixels


@pytest.mark.parametrize("report", ["compare_report", "ab_report", "league_report"])
def test_report_fits_a_1280_px_window_and_shows_its_plots(report, request, browser, tmp_path):
    page = request.getfixturevalue(report)
    start = time.monotonic()
    layout = _browser.measure(page, width=WIDTH, browser=browser)
    shot = _browser.screenshot(page, tmp_path / "page.png", width=WIDTH, height=1600,
                               browser=browser)
    elapsed = time.monotonic() - start
    # No sideways scrolling: the document, each table and each image end inside the window.
    assert layout["clientWidth"] == WIDTH, layout["clientWidth"]
    assert layout["scrollWidth"] <= WIDTH, f"{page}: the page is {layout['scrollWidth']} px wide"
    assert layout["tables"], "no table"
    assert max(layout["tables"]) <= WIDTH, layout["tables"]
    images = layout["images"]
    pngs = _embedded_pngs(page)
    assert len(images) == len(pngs) >= 2
    for image in images:
        assert image["naturalWidth"] > 100 and image["naturalHeight"] > 100, image
        assert 0 < image["right"] <= WIDTH, image
    for i, png in enumerate(pngs):
        _not_blank(png, f"{page.name} image {i} ({images[i]['alt']})")
    pixels = _not_blank(shot.read_bytes(), f"screenshot of {page}")
    assert pixels.shape[1] == WIDTH
    assert elapsed < 60, f"chromium took {elapsed:.0f} s"
