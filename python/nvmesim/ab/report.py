"""Verdicts per case and the evaluation's report (Markdown and HTML with plots).

The report reads only the run table, so a resumed run and an uninterrupted one give the
same report. Its summary lines follow the shape of policy A's published evaluation:
counts per verdict, median and maximum gain among improvements, every regression with its
case, the range of the IRQs-per-I/O reduction on reads, and whether 128K is neutral; every
p99 regression with the IOPS, mean latency and CPU per I/O changes that came with it.
"""

import base64
import html
import io
import math

from .._figures import REPORT_CSS, column_label, finish, plural, text_colour
from .._files import write_bytes, write_text
from .matrix import ARMS, warmup_text
from .verdict import VERDICTS, Limits, verdict

__all__ = ["busy_per_io", "case_table", "summary_lines", "write_report"]

_SEQ_BS = 128 * 1024


def _pct(x):
    return math.nan if x is None or (isinstance(x, float) and math.isnan(x)) else 100.0 * x


def busy_per_io(runs):
    """Each run's busy CPU per I/O: (1 - idle) over its IOPS. In a ratio of two arms on one
    host the core count cancels."""
    return (1.0 - runs["cpu_idle"]) / runs["iops"]


def _change_pct(base, cand):
    """cand over base, less one, in %; NaN where base is not a positive finite number."""
    if not (math.isfinite(base) and math.isfinite(cand)) or base <= 0:
        return math.nan
    return 100.0 * (cand / base - 1.0)


def case_table(runs, matrix, limits=None):
    """One row per case: its labels, the IOPS verdict and figures, the p99 verdict, the
    mean latency's and the CPU per I/O's change, the IRQs per I/O of both arms. ``runs`` is
    the run table (RunStore.frame())."""
    import pandas as pd

    limits = limits or Limits()
    by_case = {cid: frame for cid, frame in runs.groupby("case", sort=False)}
    rows = []
    for case in matrix.cases:
        frame = by_case.get(case.id)
        row = {"case": case.id}
        row.update({k: str(v) for k, v in case.labels.items()})
        row.update(rw=case.rw, bs_bytes=case.bs_bytes, drives_in_case=case.drives)
        arms = {}
        for arm in ARMS:
            part = frame[frame["arm"] == arm] if frame is not None else None
            arms[arm] = part.set_index("seed").sort_index() if part is not None else None
        errors = []
        if arms["baseline"] is None or arms["candidate"] is None:
            seeds = []
        else:
            seeds = sorted(set(arms["baseline"].index) & set(arms["candidate"].index))
            for arm in ARMS:
                errors += [e for e in arms[arm]["error"].tolist() if isinstance(e, str) and e]
        missing = len(matrix.seeds) - len(seeds)
        known = bool(seeds) and not errors  # both arms' figures, seed by seed, without a failed run
        b = arms["baseline"].loc[seeds] if seeds else None
        c = arms["candidate"].loc[seeds] if seeds else None
        iops = verdict(b["iops"].to_numpy() if seeds else [], c["iops"].to_numpy() if seeds else [],
                       limits) if seeds else verdict([], [], limits)
        if errors or missing:
            iops["verdict"] = "too variable"
            iops["reason"] = (f"{plural(len(errors), 'failed run')} ({errors[0]})" if errors
                              else f"{missing} of {plural(len(matrix.seeds), 'seed')} not run")
        p99 = verdict(b["p99_ns"].to_numpy(), c["p99_ns"].to_numpy(), limits,
                      higher_is_better=False) if known else {}
        row.update(
            verdict=iops["verdict"], reason=iops["reason"], n=iops["n"],
            change_pct=_pct(iops["change"]), ci_low_pct=_pct(iops["ci_low"]),
            ci_high_pct=_pct(iops["ci_high"]), p_value=iops["p_value"],
            baseline_cv_pct=_pct(iops["baseline_cv"]), threshold_pct=_pct(iops["threshold"]),
            baseline_iops=iops["baseline_mean"], candidate_iops=iops["candidate_mean"],
            p99_change_pct=_pct(p99.get("change")), p99_verdict=p99.get("verdict"),
            p99_regression=p99.get("verdict") == "regression")
        for name in ("irqs_per_io", "cpu_busy_max"):
            for arm, part in (("baseline", b), ("candidate", c)):
                row[f"{name}_{arm}"] = float(part[name].mean()) if known else math.nan
        # What a p99 change came with: the mean latency's and the CPU per I/O's change.
        row["mean_latency_change_pct"] = (_change_pct(float(b["mean_ns"].mean()), float(c["mean_ns"].mean()))
                                          if known else math.nan)
        row["cpu_per_io_change_pct"] = (_change_pct(float(busy_per_io(b).mean()), float(busy_per_io(c).mean()))
                                        if known else math.nan)
        base_irq, cand_irq = row["irqs_per_io_baseline"], row["irqs_per_io_candidate"]
        row["irqs_per_io_reduction_pct"] = (100.0 * (1.0 - cand_irq / base_irq)
                                            if base_irq and base_irq > 0 else math.nan)
        bound = b["bound_by"].dropna().tolist() if known else []
        row["baseline_bound_by"] = max(set(bound), key=bound.count) if bound else None
        rows.append(row)
    return pd.DataFrame(rows)


def _describe(row, axes):
    return ", ".join(f"{a}={row[a]}" for a in axes if a in row and isinstance(row[a], str))


def _fmt(x, digits=1, sign=True):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:+.{digits}f}%" if sign else f"{x:.{digits}f}%"


def summary_lines(cases, matrix):
    """The evaluation's summary as a list of sentences (Markdown-safe)."""
    axes = (["block"] if "block" in cases.columns else []) + list(matrix.axes)
    lines = []
    total = len(cases)
    counts = cases["verdict"].value_counts()
    seeds = len(matrix.seeds)
    lines.append(
        f"{plural(total, 'case')}, {plural(seeds, 'seed')} per arm "
        f"({plural(total * seeds * 2, 'run')}): "
        + ", ".join(_verdict_count(int(counts.get(v, 0)), v) for v in VERDICTS) + ".")
    gains = cases[cases["verdict"] == "improvement"]
    if len(gains) == 1:
        best = gains.iloc[0]
        lines.append(f"Gain of the one improvement: {_fmt(best['change_pct'])} "
                     f"({best['case']}: {_describe(best, axes)}).")
    elif len(gains):
        best = gains.loc[gains["change_pct"].idxmax()]
        lines.append(f"Gain among the {len(gains)} improvements: median "
                     f"{_fmt(gains['change_pct'].median())}, maximum {_fmt(best['change_pct'])} "
                     f"({best['case']}: {_describe(best, axes)}).")
    else:
        lines.append("No case improved.")
    losses = cases[cases["verdict"] == "regression"]
    if len(losses):
        lines.append(f"{plural(len(losses), 'throughput regression')}: "
                     + "; ".join(f"{r['case']} ({_describe(r, axes)}) {_fmt(r['change_pct'])}"
                                 for _, r in losses.iterrows()) + ".")
    else:
        lines.append("No throughput regression.")
    reads = cases[cases["rw"].isin(["read", "randread"]) & cases["irqs_per_io_reduction_pct"].notna()]
    if len(reads):
        r = reads["irqs_per_io_reduction_pct"]
        improved = reads[reads["verdict"] == "improvement"]["irqs_per_io_reduction_pct"]
        text = (f"IRQs per I/O on reads: reduced by {_fmt(r.min(), sign=False)} to "
                f"{_fmt(r.max(), sign=False)} over {_the(len(reads), 'read case')}")
        if len(improved):
            text += (f"; {_fmt(improved.min(), sign=False)} to {_fmt(improved.max(), sign=False)} "
                     f"in {_the(len(improved), 'read case')} that improved")
        lines.append(text + " (a negative reduction is an increase).")
    seq = cases[cases["bs_bytes"] == _SEQ_BS]
    if len(seq):
        seq_counts = seq["verdict"].value_counts()
        moved = int(seq_counts.get("improvement", 0) + seq_counts.get("regression", 0))
        largest = seq["change_pct"].abs().max()
        state = "neutral" if moved == 0 else "not neutral"
        lines.append(
            f"128K sequential: {state}: {int(seq_counts.get('no change', 0))} of "
            f"{plural(len(seq), 'case')} "
            f"no material change, {int(seq_counts.get('too variable', 0))} too variable, {moved} "
            f"changed; largest |change| {_fmt(largest, 2, sign=False)}.")
    p99 = cases[cases["p99_regression"]]
    if len(p99):
        lines.append(f"{plural(len(p99), 'p99 latency regression')}, each with what came with it: "
                     + "; ".join(f"{r['case']} ({_describe(r, axes)}) p99 {_fmt(r['p99_change_pct'])} "
                                 f"(IOPS {_fmt(r['change_pct'])}, mean latency "
                                 f"{_fmt(r['mean_latency_change_pct'])}, CPU per I/O "
                                 f"{_fmt(r['cpu_per_io_change_pct'])})"
                                 for _, r in p99.iterrows()) + ".")
    else:
        lines.append("No p99 latency regression.")
    return lines


def _the(n, word):
    """"the 3 read cases", "the one read case"."""
    return f"the one {word}" if n == 1 else f"the {plural(n, word)}"


def _verdict_count(n, verdict_name):
    """"1 confirmed improvement", "2 confirmed regressions", "3 too variable to say"."""
    if verdict_name in ("improvement", "regression"):
        return plural(n, f"confirmed {verdict_name}")
    return f"{n} {_VERDICT_TEXT[verdict_name]}"


_VERDICT_TEXT = {"improvement": "confirmed improvements", "regression": "confirmed regressions",
                 "no change": "no material change", "too variable": "too variable to say"}
_MARK = {"improvement": "▲", "regression": "▼", "no change": "", "too variable": "?"}


def _ordered(values):
    seen = list(dict.fromkeys(values))
    try:
        return sorted(seen, key=float)
    except ValueError:
        return seen


#: Heat map geometry, inches: a cell, the least figure, the font sizes (points).
_CELL_W, _CELL_H = 0.62, 0.30
_HEATMAP_FONT, _HEATMAP_CELL_FONT = 8, 7.5


def heatmap(cases, matrix):
    """Relative IOPS change (%) by the x axis (queue depth) per workload: a Figure. Its
    size follows the number of cells (rows and columns keep their size, the labels
    theirs), each cell's figure is written in black or white, whichever contrasts more
    with the cell's colour, and the title wraps rather than being cut."""
    import matplotlib
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm

    matrix_axes = (["block"] if "block" in cases.columns else []) + list(matrix.axes)
    x = matrix.heatmap_x
    rows_axes = [a for a in matrix_axes if a != x and a != "block"]
    cols = _ordered(cases[x].tolist()) if x in cases.columns else ["all"]
    keys = list(dict.fromkeys(tuple(r[a] for a in rows_axes) for _, r in cases.iterrows()))
    grid = np.full((len(keys), len(cols)), np.nan)
    marks = [["" for _ in cols] for _ in keys]
    index = {k: i for i, k in enumerate(keys)}
    for _, r in cases.iterrows():
        i = index[tuple(r[a] for a in rows_axes)]
        j = cols.index(r[x]) if x in cases.columns else 0
        grid[i, j] = r["change_pct"]
        marks[i][j] = _MARK.get(r["verdict"], "")
    finite = grid[np.isfinite(grid)]
    span = max(1.0, float(np.max(np.abs(finite)))) if finite.size else 1.0
    row_labels = [" / ".join(map(str, k)) for k in keys]
    # Width: the row labels (about 0.55 em a character), the cells, the colour bar.
    label_w = 0.6 * _HEATMAP_FONT / 72 * max((len(t) for t in row_labels), default=4)
    width = max(6.4, label_w + _CELL_W * len(cols) + 1.6)
    height = max(3.2, 1.6 + _CELL_H * len(keys))
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    cmap = matplotlib.colormaps["RdBu"].copy()
    cmap.set_bad("#dddddd")
    norm = TwoSlopeNorm(vmin=-span, vcenter=0.0, vmax=span)
    image = ax.imshow(np.ma.masked_invalid(grid), aspect="auto", cmap=cmap, norm=norm)
    for i in range(len(keys)):
        for j in range(len(cols)):
            if np.isfinite(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:+.0f}{marks[i][j]}", ha="center", va="center",
                        fontsize=_HEATMAP_CELL_FONT, color=text_colour(cmap(norm(grid[i, j]))))
    ax.set_xticks(range(len(cols)), [str(c) for c in cols], fontsize=_HEATMAP_FONT)
    ax.set_yticks(range(len(keys)), row_labels, fontsize=_HEATMAP_FONT)
    ax.set_xlabel(column_label(x) if x in cases.columns else "", fontsize=_HEATMAP_FONT + 1)
    if rows_axes:
        ax.set_ylabel(" / ".join(column_label(a, unit=False) for a in rows_axes),
                      fontsize=_HEATMAP_FONT + 1)
    ax.set_title("IOPS change, candidate against baseline (%)\n"
                 "▲ improvement   ▼ regression   ? too variable", fontsize=_HEATMAP_FONT + 1)
    fig.colorbar(image, ax=ax, label="IOPS change (%)", shrink=min(1.0, 4.0 / height + 0.3))
    return finish(fig)


def utilisation_plot(cases):
    """Relative IOPS change against the baseline's busiest-core utilisation: a Figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
    colours = {"improvement": "tab:blue", "regression": "tab:red", "no change": "tab:gray",
               "too variable": "tab:orange"}
    for name in VERDICTS:
        part = cases[cases["verdict"] == name]
        if len(part):
            ax.scatter(100 * part["cpu_busy_max_baseline"], part["change_pct"], s=14,
                       c=colours[name], label=f"{name} ({len(part)})", alpha=0.8)
    ax.axhline(0, color="black", lw=0.5)
    ax.set_xlabel("baseline: busiest core's utilisation (%)")
    ax.set_ylabel("IOPS change, candidate against baseline (%)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, title="verdict (cases)", title_fontsize=8)
    return finish(fig)


def _png(fig):
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()


_TABLE_COLUMNS = ("verdict", "change_pct", "ci_low_pct", "ci_high_pct", "p_value",
                  "baseline_cv_pct", "threshold_pct", "p99_change_pct", "p99_verdict",
                  "irqs_per_io_baseline", "irqs_per_io_candidate", "reason")


def _human(frame):
    """``frame`` as a reader's table: the interval's two ends in one column ("-1.2 to
    3.4"), every column named in words with its unit (cases.csv keeps both)."""
    frame = frame.copy()
    if "ci_low_pct" in frame.columns and "ci_high_pct" in frame.columns:
        at = list(frame.columns).index("ci_low_pct")
        lows, highs = frame["ci_low_pct"].astype(float), frame["ci_high_pct"].astype(float)
        ci = [f"{lo:.4g} to {hi:.4g}" if not (math.isnan(lo) or math.isnan(hi)) else ""
              for lo, hi in zip(lows, highs)]
        frame = frame.drop(columns=["ci_low_pct", "ci_high_pct"])
        frame.insert(at, "ci_pct", ci)
    return frame.rename(columns={c: column_label(c) for c in frame.columns})


def _markdown_table(frame):
    def cell(v):
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.4g}"
        return str(v).replace("|", "\\|")

    head = "| " + " | ".join(frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def write_report(directory, cases, matrix, limits, runner="simulator"):
    """Writes ``cases.csv``, ``report.md`` (+ the plots as PNG) and a self-contained
    ``report.html`` into ``directory``; returns the summary lines. Every file is built
    before any is written, then each replaces its previous file whole (nvmesim._files)."""
    from pathlib import Path

    directory = Path(directory)
    cases_csv = cases.to_csv(None, index=False, float_format="%.6g", lineterminator="\n")
    lines = summary_lines(cases, matrix)
    axes = (["block"] if "block" in cases.columns else []) + list(matrix.axes)
    figures = {"heatmap.png": _png(heatmap(cases, matrix)),
               "utilisation.png": _png(utilisation_plot(cases))}
    base = matrix.baseline["name"]
    cand = matrix.candidate["name"]
    params = ", ".join(f"{k}={v}" for k, v in matrix.candidate.get("params", {}).items())
    title = f"A/B evaluation: {cand} ({params or 'defaults'}) against {base}"
    setup = (f"Matrix: {matrix.name} ({matrix.path}). Runner: {runner}. Seeds per arm: "
             f"{len(matrix.seeds)} ({', '.join(map(str, matrix.seeds))}), shared by both arms. "
             f"Simulated window per run: {matrix.duration_us} us after {warmup_text(matrix)}. "
             f"Verdict limits: permutation p < {limits.alpha:g}, bootstrap "
             f"{100 * limits.confidence:g}% CI outside ±max({100 * limits.threshold_min:g}%, "
             f"{limits.threshold_cv_factor:g} x baseline CV); baseline CV above "
             f"{100 * limits.cv_limit:g}%: too variable. With {len(matrix.seeds)} seeds per "
             f"arm the smallest two-sided permutation p is "
             f"{2 / math.comb(2 * len(matrix.seeds), len(matrix.seeds)):.4g}.")
    listed = cases[cases["verdict"].isin(["regression"]) | cases["p99_regression"]]
    table = cases[["case", *[a for a in axes if a in cases.columns], *_TABLE_COLUMNS]]

    md = [f"# {title}", "", setup, "", "## Summary", ""]
    md += [f"- {line}" for line in lines]
    md += ["", "## Regressions (throughput or p99)", ""]
    md += [_markdown_table(_human(listed[table.columns])) if len(listed) else "None.", ""]
    md += ["## IOPS change by queue depth per workload", "", "![heatmap](heatmap.png)", "",
           "## IOPS change against baseline utilisation", "", "![utilisation](utilisation.png)",
           "", "## Every case", "", "(also in cases.csv; every run in runs.csv)", "",
           _markdown_table(_human(table)), ""]

    def img(name):
        return (f'<img alt="{name}" src="data:image/png;base64,'
                f'{base64.b64encode(figures[name]).decode()}">')

    esc = html.escape
    page = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title>", f"<style>{REPORT_CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>", f"<p>{esc(setup)}</p>", "<h2>Summary</h2><ul>",
        *[f"<li>{esc(line)}</li>" for line in lines], "</ul>",
        "<h2>Regressions (throughput or p99)</h2>",
        _human(listed[table.columns]).to_html(index=False, na_rep="", float_format="%.4g",
                                              border=0)
        if len(listed) else "<p>None.</p>",
        "<h2>IOPS change by queue depth per workload</h2>", img("heatmap.png"),
        "<h2>IOPS change against baseline utilisation</h2>", img("utilisation.png"),
        "<h2>Every case</h2><p>Also in cases.csv; every run in runs.csv.</p>",
        _human(table).to_html(index=False, na_rep="", float_format="%.4g", border=0),
        "</body></html>", ""]
    write_text(directory / "cases.csv", cases_csv, newline="")
    for name, data in figures.items():
        write_bytes(directory / name, data)
    write_text(directory / "report.md", "\n".join(md))
    write_text(directory / "report.html", "\n".join(page))
    return lines
