"""The compare report: report.md, a self-contained report.html (PNG plots inlined as
base64), points.csv and summary.json, in one directory."""

import base64
import csv
import html
import io
import json
from pathlib import Path

from .._figures import REPORT_CSS, finish, label_points, plural
from .._files import write_text
from .comparison import GROUPS, SATURATED_ABOVE
from .measurement import METRICS

__all__ = ["cdf_figure", "scatter_figure", "summary_lines", "write_report"]

_LABEL = {k: label for k, label, _ in METRICS}


def _fmt(x, digits=3):
    if x is None:
        return "n/a"
    if isinstance(x, float):
        return f"{x:.{digits}g}" if abs(x) >= 1e-3 or x == 0 else f"{x:.2e}"
    return str(x)


def _pct(x):
    return "n/a" if x is None else f"{x:+.2f}%"


def _table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def _stats_rows(comparison, group):
    rows = []
    for key, label, unit in METRICS:
        s = comparison.stats[group].get(key)
        if not s or not s["n"]:
            continue
        rows.append([f"{label}" + (f" ({unit})" if unit else ""), s["n"], _pct(s["mean_err"]),
                     "n/a" if s["mape"] is None else f"{s['mape']:.2f}%",
                     "n/a" if s["max_abs_err"] is None else f"{s['max_abs_err']:.2f}%",
                     "n/a" if s["within_10pct"] is None else f"{s['within_10pct']:.0f}%",
                     _fmt(s["pearson_r"], 4)])
    return rows


_STATS_HEAD = ["metric", "points", "mean signed error", "MAPE", "max abs error",
               "within 10%", "Pearson r"]


def _markdown(c):
    lines = [f"# nvmesim compare: {c.name}", "",
             f"{plural(len(c.points), 'point')}: simulated against measured; error = (simulated - "
             f"measured) / measured. Groups by the measured utilisation (busiest resource "
             f"<= {SATURATED_ABOVE:.0%}, saturated above, unknown when the measurement "
             "cannot tell: fio). See docs/compare.md.", ""]
    if c.bounds:
        lines += ["## Bounds", ""]
        lines += _table(["bound", "fails if", "limit", "value", "status"],
                        [[b["bound"], b["fails_if"], _fmt(b["limit"]), _fmt(b["value"], 4),
                          b["status"]] for b in c.bounds])
        lines.append("")
    for g in GROUPS:
        if g not in c.stats:
            continue
        ks = c.ks[g]
        lines += [f"## {'All points' if g == 'all' else 'Utilisation ' + g}", ""]
        lines += _table(_STATS_HEAD, _stats_rows(c, g))
        lines += ["", f"Latency-CDF KS distance over {plural(ks['n'], 'point')}: "
                      f"mean {_fmt(ks['mean'])}, "
                      f"max {_fmt(ks['max'])}.", ""]
    lines += ["## Points", ""]
    head = ["point", "measured by", "utilisation (measured / simulated)", "IOPS, measured",
            "IOPS, simulated", "IOPS error", "p99 latency error", "latency CDF KS distance"]
    rows = []
    for p in c.points:
        mu = p["measured_utilization"]
        util = f"{'unknown' if mu is None else f'{mu:.0%}'} / {_fmt_util(p['simulated_utilization'])}"
        iops = p["metrics"].get("iops", {})
        rows.append([p["name"], p["measured_source"], util, _fmt(iops.get("measured"), 6),
                     _fmt(iops.get("simulated"), 6), _pct(iops.get("err")),
                     _pct(p["metrics"].get("lat_p99", {}).get("err")), _fmt(p["ks"])])
    lines += _table(head, rows)
    return "\n".join(lines) + "\n"


def _fmt_util(u):
    return "unknown" if u is None else f"{u:.0%}"


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
    return buf.getvalue()


#: How the plots draw a metric whose stored unit or key is named here: (unit, factor).
_DRAWN = {"ns": ("µs", 1e-3), "iops": ("thousands", 1e-3)}
_GROUP_MARKERS = (("<=85%", "o", "utilisation <= 85%"), ("saturated", "^", "saturated"),
                  ("unknown", "s", "utilisation unknown"))


def scatter_figure(c, key):
    """Simulated against measured for metric ``key`` of comparison ``c``, each point
    named: a Figure, or None when no point has the metric. Log axes when every value is
    positive; a metric with a zero (no IRQ-thread time under plain interrupts) is drawn on
    linear axes from 0, so its points are plotted, not dropped. Latencies in µs."""
    import matplotlib.pyplot as plt

    label, unit = next((lb, u) for k, lb, u in METRICS if k == key)
    have = [(p["metrics"][key], p["group"], p["name"]) for p in c.points if key in p["metrics"]]
    if not have:
        return None
    shown, factor = _DRAWN.get(key, _DRAWN.get(unit, (unit, 1.0)))
    fig, ax = plt.subplots(figsize=(5.6, 4.2))
    names, xs, ys = [], [], []
    for g, marker, text in _GROUP_MARKERS:
        part = [(h["measured"] * factor, h["simulated"] * factor, n) for h, gg, n in have
                if gg == g]
        if part:
            ax.scatter([x for x, _, _ in part], [y for _, y, _ in part], marker=marker,
                       label=text, alpha=0.8, zorder=3)
            xs += [x for x, _, _ in part]
            ys += [y for _, y, _ in part]
            names += [n for _, _, n in part]
    low, high = min(xs + ys), max(xs + ys)
    if low > 0:
        lo, hi = low / 1.2, high * 1.2
        ax.set_xscale("log")
        ax.set_yscale("log")
    else:  # a zero: linear from 0, with a margin so that the points at 0 show whole
        hi = high * 1.1 if high > 0 else 1.0
        lo = -0.04 * hi
    ax.plot([lo, hi], [lo, hi], "k--", linewidth=0.8, label="y = x", zorder=2)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    u = f" ({shown})" if shown else ""
    ax.set_xlabel(f"measured{u}")
    ax.set_ylabel(f"simulated{u}")
    ax.set_title(label + (" (all zero)" if high == 0 else ""))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    finish(fig)
    label_points(ax, xs, ys, names)
    return fig


def _scatter_pngs(c):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = []
    for key, label, _ in METRICS:
        fig = scatter_figure(c, key)
        if fig is not None:
            out.append((key, label, _png(fig)))
            plt.close(fig)
    return out


def cdf_figure(point):
    """The measured and simulated latency CDFs of one point (a Comparison's
    ``points[i]``), latency in µs on a log axis: a Figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    for cdf, label in zip(point["cdfs"], ("measured", "simulated")):
        xs = [x / 1e3 for x, _ in cdf.points]
        fs = [f for _, f in cdf.points]
        if cdf.kind == "binned":
            ax.step(xs, fs, where="post", label=label)
        else:
            ax.plot(xs, fs, "o--", label=f"{label} (percentiles)")
    ax.set_xscale("log")
    ax.set_xlabel("latency (µs)")
    ax.set_ylabel("fraction of I/Os at or below")
    ax.set_title(f"{point['name']}: KS distance {_fmt(point['ks'])}", fontsize=9)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7)
    return finish(fig)


def _cdf_pngs(c):
    import matplotlib.pyplot as plt

    out = []
    for p in c.points:
        fig = cdf_figure(p)
        out.append((p["name"], _png(fig)))
        plt.close(fig)
    return out


def _html(c, markdown_text):
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
             "<meta name='viewport' content='width=device-width, initial-scale=1'>",
             f"<title>nvmesim compare: {html.escape(c.name)}</title>",
             f"<style>{REPORT_CSS}</style></head><body>"]
    header = False  # the next table row is a header (it follows a heading or text)
    for line in markdown_text.splitlines():
        if line.startswith("# "):
            parts.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            parts.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("|---"):
            continue
        elif line.startswith("| "):
            cells = [html.escape(x.strip()) for x in line.strip("|").split(" | ")]
            tag = "th" if header else "td"
            parts.append("<tr>" + "".join(f"<{tag}>{x}</{tag}>" for x in cells) + "</tr>")
            header = False
            continue
        elif line:
            parts.append(f"<p>{html.escape(line)}</p>")
        header = True
    # Wrap consecutive rows into tables.
    text, in_table = [], False
    for piece in parts:
        if piece.startswith("<tr>") and not in_table:
            text.append("<table>")
            in_table = True
        elif not piece.startswith("<tr>") and in_table:
            text.append("</table>")
            in_table = False
        text.append(piece)
    if in_table:
        text.append("</table>")
    text.append("<h2>Simulated against measured</h2>")
    for _, label, png in _scatter_pngs(c):
        text.append(f"<img alt='{html.escape(label)}' src='data:image/png;base64,"
                    f"{base64.b64encode(png).decode()}'>")
    text.append("<h2>Latency CDFs</h2>")
    for name, png in _cdf_pngs(c):
        text.append(f"<img alt='{html.escape(name)}' src='data:image/png;base64,"
                    f"{base64.b64encode(png).decode()}'>")
    text.append("</body></html>\n")
    return "\n".join(text)


def _summary(c):
    points = [{k: v for k, v in p.items() if k != "cdfs"} for p in c.points]
    return {"format": "nvmesim-compare-summary/1", "name": c.name, "stats": c.stats,
            "ks": c.ks, "bounds": c.bounds, "points": points}


def write_report(c, directory):
    """Writes the report files; returns their paths. Each is built before any is written,
    then each replaces its previous file whole (nvmesim._files)."""
    d = Path(directory)
    md = _markdown(c)
    points = io.StringIO(newline="")
    w = csv.writer(points)
    w.writerow(["point", "group", "measured_source", "measured_utilization",
                "simulated_utilization", "metric", "measured", "simulated", "err_pct", "ks"])
    for p in c.points:
        for key, m in p["metrics"].items():
            w.writerow([p["name"], p["group"], p["measured_source"],
                        p["measured_utilization"], p["simulated_utilization"], key,
                        m["measured"], m["simulated"], m["err"], p["ks"]])
    texts = {"report.md": md, "report.html": _html(c, md),
             "summary.json": json.dumps(_summary(c), indent=2) + "\n",
             "points.csv": points.getvalue()}
    d.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        write_text(d / name, text, newline="")
    return {k: d / f for k, f in (("md", "report.md"), ("html", "report.html"),
                                  ("summary", "summary.json"), ("csv", "points.csv"))}


def summary_lines(c):
    """A few lines for the terminal."""
    s = c.stats["all"]
    lines = []
    for key in ("iops", "lat_p50", "lat_p99", "lat_p99.9"):
        if key in s and s[key]["n"]:
            st = s[key]
            lines.append(f"{_LABEL[key]}: MAPE {st['mape']:.2f}%, mean error "
                         f"{st['mean_err']:+.2f}%, within 10% {st['within_10pct']:.0f}%, "
                         f"r {_fmt(st['pearson_r'], 4)} ({plural(st['n'], 'point')})")
    ks = c.ks["all"]
    lines.append(f"latency CDF KS: mean {_fmt(ks['mean'])}, max {_fmt(ks['max'])}")
    for b in c.bounds:
        lines.append(f"bound {b['bound']} (fails if {b['fails_if']} {_fmt(b['limit'])}): "
                     f"{_fmt(b['value'], 4)} {b['status']}")
    return lines
