"""Figures and reports a person can read (issue 30, item 6), checked without a browser:
plain tick labels (no "×10³" offsets or exponents) with several labels on log axes and
none overlapping, axes named in words with units, nothing clipped, zero metrics plotted,
named points, heat maps that grow with their cells and write each figure in a colour that
contrasts with its cell, human table headers, plurals, no progress bar off a terminal.

Figures come from real short runs. test_report_rendering.py looks at the HTML pages in
Chromium; test_ab.py checks the A/B heat map and tables on its own run."""

import io
import json
import os

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import nvmesim  # noqa: E402
from nvmesim import _figures  # noqa: E402
from nvmesim._sweep import _progress_bar  # noqa: E402
from nvmesim.compare import compare, write_report  # noqa: E402
from nvmesim.compare.report import cdf_figure, scatter_figure  # noqa: E402

QUICK = {"duration_us": 2000, "warmup_us": 500}
ONE_DRIVE = "published/b_one_drive_qd32.json"


def _ticks(axis):
    """The tick labels a reader sees on ``axis`` (drawn, non-empty, inside the view)."""
    lo, hi = sorted(axis.get_view_interval())
    return [t for t in axis.get_ticklabels()
            if t.get_visible() and t.get_text() and lo <= _pos(t, axis) <= hi]


def _pos(text, axis):
    x, y = text.get_position()
    return x if axis.axis_name == "x" else y


def assert_readable(fig, min_log_labels=3):
    """Plain, non-overlapping tick labels on every axis, several on log axes, no offset
    text, and no text outside the figure."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels = _ticks(axis)
            texts = [t.get_text() for t in labels]
            assert axis.get_offset_text().get_text() == "", (ax.get_title(), axis.axis_name)
            for text in texts:
                assert "×" not in text and "$" not in text and "e+" not in text \
                    and "e-" not in text, (ax.get_title(), texts)
            if axis.get_scale() == "log":
                assert len(texts) >= min_log_labels, (ax.get_title(), axis.axis_name, texts)
            boxes = sorted((t.get_window_extent(renderer) for t in labels),
                           key=lambda b: b.x0 if axis.axis_name == "x" else b.y0)
            for a, b in zip(boxes, boxes[1:]):
                if axis.axis_name == "x":
                    assert b.x0 >= a.x1, (ax.get_title(), texts)
                else:
                    assert b.y0 >= a.y1, (ax.get_title(), texts)
    assert max(_figures.overflow(fig, renderer)) <= 0.5, _figures.overflow(fig, renderer)


@pytest.fixture(scope="module")
def runs():
    return {p: nvmesim.run("default", policy__name=p, **QUICK) for p in ("irq", "watermark")}


@pytest.fixture(scope="module")
def swept():
    return nvmesim.sweep("default", {"jobs.*.iodepth": [32, 128, 1024],
                                     "policy.name": ["irq", "poll"]},
                         seeds=[1], progress=False, **QUICK)


# -- the helpers -------------------------------------------------------------------------

def test_plain_numbers_have_no_exponent_or_offset():
    assert [_figures.plain(v) for v in (2250, 2500.0, 1e6, 1250000, 0.0005, 0.5, 20, 0)] == \
        ["2250", "2500", "1000000", "1250000", "0.0005", "0.5", "20", "0"]
    assert _figures.plain(-3) == "\N{MINUS SIGN}3"


@pytest.mark.parametrize("lo, hi", [(2250, 2700), (30, 3000), (0.8, 9), (1e3, 1e9),
                                    (150, 900), (1.2e5, 1.9e6)])
def test_a_log_axis_gets_several_plain_labels_that_do_not_overlap(lo, hi):
    """The observed 2.25×10³ 2.5×10³ ... case among them: a range inside one decade."""
    fig, ax = plt.subplots(figsize=(4.2, 4.0))
    ax.plot([lo, hi], [lo, hi])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    _figures.finish(fig)
    assert_readable(fig, min_log_labels=3)
    plt.close(fig)


def test_columns_have_human_names_with_units():
    assert _figures.column_label("p99_ns") == "p99 latency (µs)"
    assert _figures.column_scale("p99_ns") == 1e-3
    assert _figures.column_label("iodepth") == "queue depth (per job)"
    assert _figures.column_label("change_pct") == "IOPS change (%)"
    assert _figures.column_label("window_us") == "window (µs)"  # not in the table
    for name in nvmesim.METRIC_COLUMNS:
        assert "_" not in _figures.column_label(name), name


def test_plurals():
    assert _figures.plural(1, "case") == "1 case"
    assert _figures.plural(0, "case") == "0 cases"
    assert _figures.plural(2, "confirmed improvement") == "2 confirmed improvements"


def test_text_colour_contrasts_with_any_background():
    for colour in ("navy", "#053061", "#67001f", "white", "#f7f7f7", "#dddddd", "#4393c3",
                   "#d6604d", "yellow", "black"):
        text = _figures.text_colour(colour)
        assert _figures.contrast_ratio(text, colour) >= 4.5, (colour, text)
    assert _figures.text_colour("navy") == "white"
    assert _figures.text_colour("#f7f7f7") == "black"


# -- nvmesim.plot ------------------------------------------------------------------------

def test_latency_cdf_has_plain_microsecond_ticks(runs):
    for tail in (False, True):
        fig = nvmesim.plot.latency_cdf(runs, tail=tail)
        ax = fig.axes[0]
        assert ax.get_xlabel() == "latency (µs)"
        assert_readable(fig)
        plt.close(fig)


def test_metric_vs_names_its_axes_and_clips_nothing(swept):
    fig = nvmesim.plot.metric_vs(swept, x="iodepth", y="p99_ns")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "queue depth (per job)"
    assert ax.get_ylabel() == "p99 latency (µs)"
    assert ax.get_legend().get_title().get_text() == "completion policy"
    assert_readable(fig, min_log_labels=3)
    assert [t.get_text() for t in _ticks(ax.xaxis)] == ["32", "128", "1024"]  # the depths
    plt.close(fig)
    fig = nvmesim.plot.metric_vs(swept, x="iodepth", y="irqs_per_io", hue=None)
    assert fig.axes[0].get_ylabel() == "IRQs per I/O"
    assert_readable(fig)
    plt.close(fig)


def test_iops_p99_cpu_and_timeline_are_readable(swept, runs):
    fig = nvmesim.plot.iops_p99(swept, x="iodepth", hue="policy", title="a title")
    assert [a.get_ylabel() for a in fig.axes] == ["IOPS (millions)", "p99 latency (µs)"]
    assert_readable(fig)
    plt.close(fig)
    for fig in (nvmesim.plot.cpu_breakdown(runs["irq"]),
                nvmesim.plot.mode_timeline(runs["watermark"], max_queues=8)):
        assert_readable(fig)
        plt.close(fig)


# -- nvmesim compare ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    """Seed 1 against seed 2 of the one-drive scenario (plain interrupts: no IRQ-thread
    time) at queue depths 1, 8 and 32."""
    d = tmp_path_factory.mktemp("cmp")
    scenario = os.path.join(nvmesim.default_scenarios_dir(), ONE_DRIVE)
    pairs = []
    for qd in (1, 8, 32):
        for seed, side in ((1, "m"), (2, "s")):
            nvmesim.run(scenario, seed=seed, jobs__0__iodepth=qd, duration_us=5000,
                        warmup_us=1000).to_json(d / f"{side}{qd}.json")
        pairs.append({"name": f"QD {qd}", "measured": f"m{qd}.json", "simulated": f"s{qd}.json"})
    (d / "spec.json").write_text(json.dumps({"format": "nvmesim-compare/1", "pairs": pairs}))
    return compare(d / "spec.json")


def test_compare_scatter_names_its_points_on_plain_log_axes(comparison):
    fig = scatter_figure(comparison, "iops")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "measured (thousands)"
    assert {t.get_text() for t in ax.texts} == {"QD 1", "QD 8", "QD 32"}
    assert_readable(fig)
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    inside = ax.get_window_extent(renderer)
    assert all(inside.x0 <= b.x0 and b.x1 <= inside.x1 and inside.y0 <= b.y0
               and b.y1 <= inside.y1 for b in boxes), (inside, boxes)
    plt.close(fig)
    fig = scatter_figure(comparison, "lat_p99")
    assert fig.axes[0].get_xlabel() == "measured (µs)"
    assert_readable(fig, min_log_labels=2)
    plt.close(fig)


def test_compare_scatter_plots_a_zero_metric_at_zero(comparison):
    values = [p["metrics"]["cpu_irq_thread"] for p in comparison.points]
    assert len(values) == 3 and all(v["measured"] == 0 and v["simulated"] == 0 for v in values)
    fig = scatter_figure(comparison, "cpu_irq_thread")
    ax = fig.axes[0]
    offsets = [tuple(xy) for c in ax.collections for xy in c.get_offsets()]
    assert offsets == [(0.0, 0.0)] * 3
    assert ax.get_xlim()[0] < 0 < ax.get_xlim()[1]  # the points show whole
    assert [t.get_text() for t in ax.texts] == ["QD 1, QD 8, QD 32"]  # one label, not three
    assert "all zero" in ax.get_title()
    assert_readable(fig)
    plt.close(fig)


def test_compare_cdf_is_in_microseconds(comparison):
    fig = cdf_figure(comparison.points[0])
    assert fig.axes[0].get_xlabel() == "latency (µs)"
    assert_readable(fig, min_log_labels=3)
    plt.close(fig)


def test_compare_report_headers_and_plurals(comparison, tmp_path):
    write_report(comparison, tmp_path)
    page = (tmp_path / "report.html").read_text()
    assert "<th>metric</th><th>points</th>" in page and "<th>IOPS, measured</th>" in page
    assert "<td>metric</td>" not in page
    assert "3 points: simulated against measured" in (tmp_path / "report.md").read_text()


def test_compare_of_one_pair_says_one_point(comparison, tmp_path):
    point = comparison.points[0]
    c = compare(point["measured_path"], point["simulated_path"], out=tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "1 point: simulated against measured" in text and "over 1 point:" in text
    assert "1 points" not in text
    assert c.points


# -- progress bars -----------------------------------------------------------------------

class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal(monkeypatch):
    """Off a terminal (a log, a pipe, a notebook without ipywidgets) every redraw would be
    a line of its own: the bar stays quiet there."""
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    bar = _progress_bar(5, True)
    assert bar.disable
    for _ in range(5):
        bar.update()
    bar.close()
    assert pipe.getvalue() == ""
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    bar = _progress_bar(5, True)
    assert not bar.disable
    bar.update(5)
    bar.close()
    assert "5/5" in terminal.getvalue()
    assert _progress_bar(5, False) is None

