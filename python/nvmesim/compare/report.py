"""The compare report: report.md, a self-contained report.html (PNG plots inlined as
base64), points.csv and summary.json, in one directory."""

import base64
import csv
import html
import io
import json
from pathlib import Path

from .._files import write_text
from .comparison import GROUPS, SATURATED_ABOVE
from .measurement import METRICS

__all__ = ["write_report", "summary_lines"]

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
             f"{len(c.points)} points: simulated against measured; error = (simulated - "
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
        lines += ["", f"Latency-CDF KS distance over {ks['n']} points: mean {_fmt(ks['mean'])}, "
                      f"max {_fmt(ks['max'])}.", ""]
    lines += ["## Points", ""]
    head = ["point", "measured", "utilisation (measured / sim)", "IOPS meas", "IOPS sim",
            "IOPS err", "p99 err", "KS"]
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


def _scatter_pngs(c):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = []
    for key, label, unit in METRICS:
        have = [(p["metrics"][key], p["group"]) for p in c.points if key in p["metrics"]]
        have = [(h, g) for h, g in have if h["measured"] > 0 and h["simulated"] > 0]
        if not have:
            continue
        fig, ax = plt.subplots(figsize=(4.2, 4.0))
        for g, marker in (("<=85%", "o"), ("saturated", "^"), ("unknown", "s")):
            xs = [h["measured"] for h, gg in have if gg == g]
            ys = [h["simulated"] for h, gg in have if gg == g]
            if xs:
                ax.scatter(xs, ys, marker=marker, label=g, alpha=0.8)
        lo = min(min(h["measured"], h["simulated"]) for h, _ in have) / 1.2
        hi = max(max(h["measured"], h["simulated"]) for h, _ in have) * 1.2
        ax.plot([lo, hi], [lo, hi], "k--", linewidth=0.8, label="y = x")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        u = f" ({unit})" if unit else ""
        ax.set_xlabel(f"measured{u}")
        ax.set_ylabel(f"simulated{u}")
        ax.set_title(label)
        ax.legend(fontsize=7)
        fig.tight_layout()
        out.append((key, label, _png(fig)))
        plt.close(fig)
    return out


def _cdf_pngs(c):
    import matplotlib.pyplot as plt

    out = []
    for p in c.points:
        fig, ax = plt.subplots(figsize=(4.8, 3.2))
        for cdf, label in zip(p["cdfs"], ("measured", "simulated")):
            xs = [x for x, _ in cdf.points]
            fs = [f for _, f in cdf.points]
            if cdf.kind == "binned":
                ax.step(xs, fs, where="post", label=label)
            else:
                ax.plot(xs, fs, "o--", label=f"{label} (percentiles)")
        ax.set_xscale("log")
        ax.set_xlabel("latency (ns)")
        ax.set_ylabel("cumulative fraction")
        ax.set_title(f"{p['name']}: KS {_fmt(p['ks'])}", fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        out.append((p["name"], _png(fig)))
        plt.close(fig)
    return out


def _html(c, markdown_text):
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
             f"<title>nvmesim compare: {html.escape(c.name)}</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
             "img{margin:4px}</style></head><body>"]
    for line in markdown_text.splitlines():
        if line.startswith("# "):
            parts.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            parts.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("|---"):
            continue
        elif line.startswith("| "):
            cells = [html.escape(x.strip()) for x in line.strip("|").split(" | ")]
            parts.append("<tr>" + "".join(f"<td>{x}</td>" for x in cells) + "</tr>")
        elif line:
            parts.append(f"<p>{html.escape(line)}</p>")
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
                         f"r {_fmt(st['pearson_r'], 4)} ({st['n']} points)")
    ks = c.ks["all"]
    lines.append(f"latency CDF KS: mean {_fmt(ks['mean'])}, max {_fmt(ks['max'])}")
    for b in c.bounds:
        lines.append(f"bound {b['bound']} (fails if {b['fails_if']} {_fmt(b['limit'])}): "
                     f"{_fmt(b['value'], 4)} {b['status']}")
    return lines
