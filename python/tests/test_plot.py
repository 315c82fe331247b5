"""nvmesim.plot draws real figures from sweeps and runs (Agg backend)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import nvmesim  # noqa: E402

QUICK = {"duration_us": 2000, "warmup_us": 500}


@pytest.fixture(scope="module")
def runs():
    return {p: nvmesim.run("default", policy__name=p, **QUICK) for p in ("irq", "watermark")}


def saved(fig, tmp_path, name):
    path = tmp_path / f"{name}.png"
    fig.savefig(path)
    plt.close(fig)
    return path.stat().st_size


def test_iops_p99(tmp_path):
    df = nvmesim.sweep("default", {"jobs.*.iodepth": [32, 128, 1024], "policy.name": ["irq", "poll"]},
                       seeds=[1, 2], progress=False, **QUICK)
    fig = nvmesim.plot.iops_p99(df, x="iodepth", hue="policy")
    left, right = fig.axes
    assert len(left.lines) == 2 and len(right.lines) == 2
    assert left.get_xscale() == "log"  # 32..1024 spans more than a factor of 16
    assert right.get_legend() is not None
    assert saved(fig, tmp_path, "iops_p99") > 10_000


def test_latency_cdf(runs, tmp_path):
    fig = nvmesim.plot.latency_cdf(runs)
    assert [line.get_label() for line in fig.axes[0].lines] == ["irq", "watermark"]
    assert saved(fig, tmp_path, "cdf") > 10_000
    fig = nvmesim.plot.latency_cdf(list(runs.values()), tail=True)
    assert fig.axes[0].get_yscale() == "log"
    plt.close(fig)


def test_cpu_breakdown(runs, tmp_path):
    r = runs["irq"]
    fig = nvmesim.plot.cpu_breakdown(r, busy_only=True)
    busy = (r.cores["idle"] < 1.0).sum()
    assert len(fig.axes[0].patches) == 5 * busy  # five stacked states per core
    assert saved(fig, tmp_path, "cpu") > 10_000


def test_mode_timeline(runs, tmp_path):
    r = runs["watermark"]
    fig = nvmesim.plot.mode_timeline(r, max_queues=8)
    ax = fig.axes[0]
    assert len(ax.get_yticks()) == 8
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert set(r.timeline["to"]) <= set(labels)
    assert saved(fig, tmp_path, "timeline") > 10_000
