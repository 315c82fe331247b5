"""The files a tuning study leaves: trials.csv, best_policy.json, pareto.csv and .png,
report.md and report.html (the held-out half's own A/B report is in heldout/)."""

import base64
import html
import json
import math
from pathlib import Path

from .._figures import REPORT_CSS, column_label, finish, plural
from .._files import write_bytes, write_text
from ..ab.report import _markdown_table, _png

__all__ = ["write_tune_report"]


def _pct(x):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:+.1f}%"


def pareto_plot(trials, front):
    """Gain against p99 change of every trial without a confirmed regression, the front
    marked and each point coloured by its CPU-per-I/O change: a Figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
    ok = trials[(trials["regressions"] == 0) & trials["error"].isna()]
    bad = trials[(trials["regressions"] > 0) | trials["error"].notna()]
    gain = ok["gain_pct"].fillna(0.0)
    points = ax.scatter(ok["p99_change_pct"].fillna(0.0), gain, s=22,
                        c=ok["cpu_per_io_change_pct"].fillna(0.0), cmap="viridis",
                        label=f"{plural(len(ok), 'trial')} without a confirmed regression")
    if len(front):
        ax.plot(front["p99_change_pct"].fillna(0.0), front["gain_pct"].fillna(0.0), "o",
                mfc="none", mec="tab:red", ms=11, label=f"Pareto front ({len(front)})")
        for _, r in front.iterrows():
            ax.annotate(f"t{int(r['number'])}", (r["p99_change_pct"] if math.isfinite(r["p99_change_pct"]) else 0.0,
                                                  r["gain_pct"] if math.isfinite(r["gain_pct"]) else 0.0),
                        textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xlabel("p99 latency change, median over the cases (%)")
    ax.set_ylabel("median gain of confirmed improvements (%)")
    ax.set_title(f"{plural(len(trials), 'trial')}; {len(bad)} with a confirmed regression or "
                 "invalid parameters not shown", fontsize=9)
    ax.grid(True, alpha=0.3)
    fig.colorbar(points, ax=ax, label="CPU per I/O change (%)")
    ax.legend(fontsize=8)
    return finish(fig)


def _table_md(frame):
    return _markdown_table(frame.rename(columns=column_label))


def write_tune_report(directory, trials, best, best_row, front, heldout_lines, space, sampler,
                      seed, n_trials, tuned_cases=None):
    """Writes the study's files into ``directory``; returns the summary lines."""
    directory = Path(directory)
    ranges = ", ".join(f"{k} {lo}..{hi}" for k, (lo, hi) in space.items())
    params = ", ".join(f"{k}={v}" for k, v in best["params"].items())
    where = f" on the tuning half ({plural(tuned_cases, 'case')})" if tuned_cases else ""
    lines = [f"{plural(n_trials, 'trial')} of {best['name']} ({ranges}; sampler {sampler}, "
             f"seed {seed}){where}; "
             f"{int(((trials['regressions'] == 0) & trials['error'].isna()).sum())} without a "
             f"confirmed regression."]
    if best_row["regressions"] == 0 and not best_row.get("error"):
        n = best_row.get("improvements")
        gain = (f"median gain {_pct(best_row.get('gain_pct'))}" if n is None else
                f"median gain {_pct(best_row.get('gain_pct'))} over {plural(n, 'confirmed improvement')}"
                if n else "no confirmed improvement")
        lines.append(f"Best: trial {best_row['number']} ({params}): {gain}, no confirmed regression.")
    else:
        lines.append(f"Every trial has a confirmed regression or invalid parameters; the least "
                     f"bad is trial {best_row['number']} ({params}).")
    lines.append(f"Pareto front (gain, p99, CPU per I/O): {plural(len(front), 'trial')}"
                 + (": " + ", ".join(f"t{int(n)}" for n in front["number"]) if len(front) else "")
                 + ".")
    if heldout_lines:
        lines.append("Held-out half, the best parameters judged once: " + heldout_lines[0])
        lines += [f"Held-out: {line}" for line in heldout_lines[1:]]
    block = {"policy": best}
    figures = {"pareto.png": _png(pareto_plot(trials, front))}
    md = [f"# Tuning {best['name']}", "", *[f"- {s}" for s in lines], "",
          "## Best parameters (a scenario's policy block)", "", "```json",
          json.dumps(block, indent=2), "```", "", "## Pareto front", "", "![pareto](pareto.png)", "",
          _table_md(front) if len(front) else "None.", "", "## Every trial", "",
          "(also in trials.csv; each trial's runs in trials/tNNNN/)", "", _table_md(trials), ""]
    if heldout_lines:
        md += ["The held-out half's own report: [heldout/report.md](heldout/report.md).", ""]
    esc = html.escape
    img = ('<img alt="pareto" src="data:image/png;base64,'
           f'{base64.b64encode(figures["pareto.png"]).decode()}">')
    page = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            f"<title>Tuning {esc(best['name'])}</title>", f"<style>{REPORT_CSS}</style></head><body>",
            f"<h1>Tuning {esc(best['name'])}</h1>", "<ul>", *[f"<li>{esc(s)}</li>" for s in lines],
            "</ul>", "<h2>Best parameters</h2>", f"<pre>{esc(json.dumps(block, indent=2))}</pre>",
            "<h2>Pareto front</h2>", img,
            front.rename(columns=column_label).to_html(index=False, na_rep="", float_format="%.4g", border=0)
            if len(front) else "<p>None.</p>",
            "<h2>Every trial</h2>",
            trials.rename(columns=column_label).to_html(index=False, na_rep="", float_format="%.4g", border=0),
            "</body></html>", ""]
    write_text(directory / "trials.csv", trials.to_csv(None, index=False, float_format="%.6g",
                                                        lineterminator="\n"), newline="")
    write_text(directory / "pareto.csv", front.to_csv(None, index=False, float_format="%.6g",
                                                       lineterminator="\n"), newline="")
    write_text(directory / "best_policy.json", json.dumps(block, indent=2) + "\n")
    for name, data in figures.items():
        write_bytes(directory / name, data)
    write_text(directory / "report.md", "\n".join(md))
    write_text(directory / "report.html", "\n".join(page))
    return lines
