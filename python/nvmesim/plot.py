"""Plots of sweeps and runs, with matplotlib.

Every function draws on ``ax`` if given (else a new figure) and returns the matplotlib
``Figure`` it drew on, so notebooks show it and scripts can ``fig.savefig(...)``.

* :func:`iops_p99` / :func:`metric_vs`: a sweep's IOPS and p99 against a swept
  parameter, one line per policy (mean over seeds, min-max band).
* :func:`latency_cdf`: latency distributions of one or more runs.
* :func:`cpu_breakdown`: per-core CPU time of a run as stacked bars.
* :func:`mode_timeline`: when each queue switched between interrupts and polling.

Axes are named in words with their units (``p99_ns`` is drawn as "p99 latency (µs)"),
tick labels are plain numbers that do not overlap (several a decade on log axes where
they fit), and the figure is laid out so that no text is clipped (nvmesim._figures).
Ticks are fixed when the figure is drawn: an interactive zoom keeps them.
"""

from ._figures import column_label, column_scale, finish
from .result import CPU_STATES, Result

__all__ = ["metric_vs", "iops_p99", "latency_cdf", "cpu_breakdown", "mode_timeline"]

_CPU_COLORS = {"hardirq": "#d62728", "softirq": "#ff7f0e", "irq_thread": "#9467bd",
               "app": "#1f77b4", "idle": "#e0e0e0"}


def _spans_decades(column):
    """Whether a numeric, positive column spans more than a factor of 16."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    if not is_numeric_dtype(column) or is_bool_dtype(column) or column.empty:
        return False
    low, high = column.min(), column.max()
    return bool(low > 0 and high / low > 16)


def _axes(ax, figsize=(6.4, 4.0)):
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax.figure, ax
    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    return fig, ax


def metric_vs(df, x, y="iops", hue="policy", ax=None, logx=None, title=None):
    """Plots column ``y`` of a sweep DataFrame against column ``x``, one line per value
    of ``hue`` (None: a single line). Rows with an error are left out; several seeds
    at one point are averaged, with their min-max range shaded.

    ``logx``: log-scale x axis; by default when x is numeric, positive and spans more
    than a factor of 16 (queue depths, say). Returns the Figure.
    """
    fig, ax = _axes(ax)
    _metric_vs(df, x, y, hue, ax, logx)
    if title:
        ax.set_title(title)
    return finish(fig)


def _metric_vs(df, x, y, hue, ax, logx):
    data = df[df["error"].isna()] if "error" in df.columns else df
    scale = column_scale(y)
    groups = [(None, data)] if hue is None else list(data.groupby(hue, sort=False))
    for name, group in groups:
        stats = group.groupby(x, sort=True)[y].agg(["mean", "min", "max"])
        xs = list(stats.index)
        ax.plot(xs, stats["mean"] * scale, marker="o", label=None if name is None else str(name))
        if (stats["max"] > stats["min"]).any():
            ax.fill_between(xs, stats["min"] * scale, stats["max"] * scale, alpha=0.2)
    if logx is None:
        logx = _spans_decades(data[x])
    if logx:
        ax.set_xscale("log", base=2)
        values = sorted({float(v) for v in data[x].dropna()})
        if values and len(values) <= 16:
            ax.set_xticks(values)  # the swept values themselves (queue depths)
    ax.set_xlabel(column_label(x))
    ax.set_ylabel(column_label(y))
    ax.grid(True, alpha=0.3)
    if hue is not None and len(groups) > 1:
        ax.legend(title=column_label(hue, unit=False), fontsize="small")


def iops_p99(df, x, hue="policy", logx=None, p="p99_ns", title=None):
    """Two panels side by side: IOPS and p99 latency against ``x``, one line per
    ``hue``. ``p`` picks another latency column (``"p999_ns"``). Returns the Figure."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.0), layout="constrained")
    _metric_vs(df, x, "iops", hue, left, logx)
    _metric_vs(df, x, p, hue, right, logx)
    left.set_title("throughput")
    right.set_title(column_label(p, unit=False))
    if right.get_legend() is not None and left.get_legend() is not None:
        left.get_legend().remove()
    if title:
        fig.suptitle(title)
    return finish(fig)


def _named_results(results, labels):
    if isinstance(results, Result):
        results = [results]
    if isinstance(results, dict):
        return list(results.items())
    results = list(results)
    if labels is None:
        labels = [f"{r.scenario.get('policy', {}).get('name', '?')} seed {r.seed}" for r in results]
    return list(zip(labels, results))


def latency_cdf(results, labels=None, ax=None, tail=False, logx=True, title=None):
    """Latency distribution(s) of whole runs.

    Args:
        results: a Result, a list of them, or a dict label -> Result.
        labels: names for a list of results (default: policy and seed).
        tail: plot the complementary CDF (fraction of I/Os slower than x) on a log
            scale, to show p99.9 and beyond.
    Uses the results' ``latency_cdf``, or the percentiles where it is absent.
    Returns the Figure.
    """
    fig, ax = _axes(ax)
    for label, result in _named_results(results, labels):
        cdf = result.latency_cdf
        xs = cdf["latency_ns"] / 1e3
        ys = (1.0 - cdf["fraction"]) if tail else cdf["fraction"]
        if tail:
            keep = ys > 0
            xs, ys = xs[keep], ys[keep]
        ax.step(xs, ys, where="post", label=label)
    if logx:
        ax.set_xscale("log")
    if tail:
        ax.set_yscale("log")
        ax.set_ylabel("fraction of I/Os slower")
    else:
        ax.set_ylabel("fraction of I/Os")
        ax.set_ylim(0, 1.02)
    ax.set_xlabel("latency (µs)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    if title:
        ax.set_title(title)
    return finish(fig)


def cpu_breakdown(result, ax=None, cores=None, busy_only=False, title=None):
    """Per-core CPU time of a run as stacked bars (hard-IRQ, softirq, IRQ thread,
    application, idle), as fractions of the measured window.

    ``cores``: the core numbers to show (default all); ``busy_only``: leave out cores
    that were idle the whole window. Returns the Figure.
    """
    frame = result.cores
    if cores is not None:
        frame = frame[frame["core"].isin(list(cores))]
    if busy_only:
        frame = frame[frame["idle"] < 1.0]
    fig, ax = _axes(ax, figsize=(max(6.4, 0.35 * len(frame) + 2), 4.0))
    positions = list(range(len(frame)))
    bottom = [0.0] * len(frame)
    for state in CPU_STATES:
        values = list(frame[state].fillna(0.0))
        ax.bar(positions, values, bottom=bottom, color=_CPU_COLORS[state], label=state,
               width=0.8, edgecolor="none")
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xticks(positions)
    ax.set_xticklabels([str(c) for c in frame["core"]], fontsize="small")
    ax.set_xlabel("core")
    ax.set_ylabel("fraction of time")
    ax.set_ylim(0, 1.0)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    ax.set_title(title or "CPU time per core")
    return finish(fig)


def mode_timeline(result, ax=None, queues=None, max_queues=32, title=None):
    """Each queue's mode over simulated time (e.g. ``irq`` vs ``thread_poll``), one
    horizontal band per queue. The warm-up (excluded from the figures) is shaded.

    ``queues``: the global queue numbers to show (default: those that changed mode,
    up to ``max_queues``, else the first ones). Returns the Figure.
    """
    scenario = result.scenario
    warmup = scenario.get("warmup_us", 0) * 1000
    end = warmup + result.data.get("window_ns", scenario.get("duration_us", 0) * 1000)
    entries = result.data["queues"]
    if queues is None:
        changed = [q for q in entries if q.get("mode_timeline")]
        entries = (changed or entries)[:max_queues]
    else:
        wanted = set(queues)
        entries = [q for q in entries if q.get("queue") in wanted]
    modes = sorted({m for q in entries for c in q.get("mode_timeline", [])
                    for m in (c["from"], c["to"])} | {q.get("final_mode", "?") for q in entries})
    import matplotlib

    cmap = matplotlib.colormaps["tab10"]
    colors = {m: cmap(i % 10) for i, m in enumerate(modes)}
    fig, ax = _axes(ax, figsize=(9, max(2.5, 0.28 * len(entries) + 1.5)))
    for row, q in enumerate(entries):
        changes = q.get("mode_timeline", [])
        mode = changes[0]["from"] if changes else q.get("final_mode", "?")
        start = 0
        spans = []
        for c in changes:
            spans.append((start, c["t_ns"], mode))
            start, mode = c["t_ns"], c["to"]
        spans.append((start, max(end, start), mode))
        for t0, t1, m in spans:
            if t1 > t0:
                ax.broken_barh([(t0 / 1e3, (t1 - t0) / 1e3)], (row - 0.4, 0.8), color=colors[m])
    if warmup:
        ax.axvspan(0, warmup / 1e3, color="black", alpha=0.08, label="warm-up")
    ax.set_yticks(range(len(entries)))
    ax.set_yticklabels([f"q{q.get('queue', i)} (nvme{q.get('drive', '?')})"
                        for i, q in enumerate(entries)], fontsize="x-small")
    ax.set_xlim(0, max(end, 1) / 1e3)
    ax.set_xlabel("simulated time (µs)")
    from matplotlib.patches import Patch

    handles = [Patch(color=colors[m], label=m) for m in modes]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    ax.set_title(title or f"queue modes ({scenario.get('policy', {}).get('name', '?')})")
    ax.invert_yaxis()
    return finish(fig)
