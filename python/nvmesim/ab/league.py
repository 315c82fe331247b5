"""Several candidates against one baseline on the same cases and seeds (a league).

A league is one ordinary A/B evaluation per candidate whose baseline runs are shared:
each (case, seed) of the baseline runs once and its row goes into every candidate's run
table, so ``DIR/<label>/`` is exactly the directory ``nvmesim ab`` writes for that
candidate alone (runs.csv, cases.csv, report.md/html, the heat map), and a killed league
resumes from those tables. ``DIR/league.*`` ranks the candidates: per candidate the counts
of confirmed improvements, throughput and p99 regressions, no change and too variable,
the median and maximum gain, IRQs and CPU per I/O, its heat map; then the cases where
the candidates' verdicts disagree. See docs/ab.md, "A league".
"""

import base64
import html
import math
import re
from dataclasses import dataclass
from pathlib import Path

from .._figures import REPORT_CSS, plural
from .._files import write_bytes, write_text
from .matrix import MatrixError, load_matrix, read_matrix_doc, warmup_text
from .report import busy_per_io
from .verdict import VERDICTS, Limits

__all__ = ["LeagueResult", "candidate_arms", "disagreements", "league", "league_table", "run_shared",
           "parse_candidate"]

_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.,=+-]{0,63}$")
#: The columns of league.csv, in order (the rank first).
LEAGUE_COLUMNS = ("rank", "candidate", "policy", "params", "cases", "improvements",
                  "regressions", "p99_regressions", "no_change", "too_variable",
                  "median_gain_pct", "max_gain_pct", "median_change_pct",
                  "irqs_per_io_median", "irqs_per_io_reduction_on_reads_pct",
                  "cpu_per_io_change_pct")


@dataclass
class LeagueResult:
    """What :func:`league` returns.

    Attributes:
        table: DataFrame, one row per candidate, ranked (league.csv).
        cases: DataFrame, one row per (case, candidate): verdicts and figures.
        disagreements: DataFrame, one row per case whose verdicts differ.
        summary: the league report's summary sentences.
        results: candidate label -> that candidate's case table (its own A/B report).
        directory: where league.md, league.html, the CSVs and one folder per candidate are.
        interrupted: True when Ctrl-C stopped the runs; run again to resume (no report).
    """

    table: object
    cases: object
    disagreements: object
    summary: list
    results: dict
    directory: Path
    interrupted: bool


def parse_candidate(text):
    """``NAME`` or ``NAME:param=value,param=value`` (integer values) as an arm dict."""
    name, _, rest = text.partition(":")
    name = name.strip()
    if not name:
        raise ValueError(f"--candidate {text!r}: no policy name")
    params = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--candidate {text!r}: {item!r} is not param=value")
        try:
            params[key.strip()] = int(value)
        except ValueError:
            raise ValueError(f"--candidate {text!r}: {key.strip()}={value!r} is not an integer") from None
    arm = {"name": name}
    if params:
        arm["params"] = params
    return arm


def _default_label(arm, shared_name):
    if not shared_name or not arm.get("params"):
        return arm["name"]
    return arm["name"] + "-" + ",".join(f"{k}={v}" for k, v in sorted(arm["params"].items()))


def candidate_arms(matrix, candidates=None):
    """``[(label, arm, where)]``: ``candidates`` (arm dicts or ``NAME:p=v`` strings) when given,
    else the matrix's ``candidates``, else its one ``candidate``. Labels are unique and
    name folders: a clash or a bad label is a MatrixError naming where it came from."""
    doc, _, _ = read_matrix_doc(matrix)
    if candidates:
        arms = [parse_candidate(c) if isinstance(c, str) else dict(c) for c in candidates]
        where = "--candidate"
    elif isinstance(doc.get("candidates"), list):
        arms, where = [dict(a) for a in doc["candidates"]], "/candidates"
    elif isinstance(doc.get("candidate"), dict):
        arms, where = [dict(doc["candidate"])], "/candidate"
    else:
        raise MatrixError("", "a matrix needs 'candidate' or 'candidates'")
    names = [a.get("name") for a in arms]
    out, seen = [], {}
    for i, arm in enumerate(arms):
        at = f"{where}/{i}" if where == "/candidates" else where
        label = arm.get("label") or _default_label(arm, names.count(arm.get("name")) > 1)
        if not isinstance(label, str) or not _LABEL.match(label):
            given = "label" in arm and where == "/candidates"
            raise MatrixError(f"{at}/label" if given else at,
                              f"candidate label {label!r} must be 1-64 letters, digits or _.,=+- "
                              "(it names a folder)" + ("" if given else "; give it a 'label'"))
        if label in seen:
            raise MatrixError(at, f"two candidates have the label {label!r} (the first is "
                                  f"candidate {seen[label]}): give one a 'label'")
        seen[label] = i
        out.append((label, arm, at if where != "--candidate" else f"--candidate {label}"))
    return out


def _load(matrix, arm, where, **options):
    """One candidate's A/B spec; an error about its arm names where the arm came from
    (``/candidates/1``, ``--candidate rate``) rather than the one-candidate matrix's path."""
    try:
        return load_matrix(matrix, candidate=arm, **options)
    except MatrixError as exc:
        if exc.path == "/candidate" or exc.path.startswith("/candidate/"):
            raise MatrixError(where + exc.path[len("/candidate"):], exc.message) from None
        raise


def _journal_class():
    """The executor's ``outcomes`` mapping: a baseline outcome goes into the run table of
    every candidate that shares it, a candidate's into its own."""

    class Journal:
        def __init__(self, stores, keys):
            self._stores, self._keys, self._seen = stores, keys, set()

        def __setitem__(self, index, outcome):
            _seed, metrics, error = outcome
            case_id, who, seed = self._keys[index]
            if isinstance(who, tuple):  # a baseline run, for these candidates
                for label in who:
                    self._stores[label].add(case_id, "baseline", seed, metrics, error)
            else:
                self._stores[who].add(case_id, "candidate", seed, metrics, error)
            self._seen.add(index)

        def __contains__(self, index):
            return index in self._seen

    return Journal


def _copy_row(source, target, key):
    """A baseline run on disk in one candidate's table but not another's (a kill between
    the two writes) is copied, not run again."""
    from .._sweep import METRIC_COLUMNS

    row = source.rows[key]
    metrics = {name: row.get(name) for name in METRIC_COLUMNS}
    metrics = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in metrics.items()}
    target.add(key[0], key[1], key[2], metrics, row.get("error"), order=row.get("order"),
               made_by=source.builds())


def baseline_groups(specs):
    """Per case, its candidates grouped by the baseline scenario they pair with, in
    ``specs``' order: one baseline run serves a group. The arms of a case run the longest
    warm-up either asks for (matrix.with_warmup), so a candidate whose policy lengthens it
    (policy C's first cycle) has a baseline of its own."""
    import json

    first = next(iter(specs.values()))
    out = []
    for i in range(len(first.cases)):
        groups = {}
        for label, spec in specs.items():
            text = json.dumps(spec.cases[i].scenarios["baseline"], sort_keys=True)
            groups.setdefault(text, []).append(label)
        out.append(list(groups.values()))
    return out


def _pending(specs, stores, groups_per_case):
    """Tasks not on disk yet: per case and seed each distinct baseline (once for the
    candidates that share it), then each candidate, as ``[(case, who, seed, scenario)]``
    (who: a tuple of candidate labels for a baseline run, a label for a candidate's)."""
    first = next(iter(specs.values()))
    todo = []
    for i, case in enumerate(first.cases):
        groups = groups_per_case[i]
        for seed in first.seeds:
            key = (case.id, "baseline", seed)
            for group in groups:
                have = [stores[label] for label in group if key in stores[label].done]
                if not have:
                    todo.append((case, tuple(group), seed, specs[group[0]].cases[i].scenarios["baseline"]))
                    continue
                for label in group:
                    if key not in stores[label].done:
                        _copy_row(have[0], stores[label], key)
            for label, spec in specs.items():
                if (case.id, "candidate", seed) not in stores[label].done:
                    todo.append((case, label, seed, spec.cases[i].scenarios["candidate"]))
    return todo


def run_shared(specs, stores, workers=None, client=None, progress=True, desc="nvmesim ab",
               groups=None):
    """Runs what ``stores`` (label -> RunStore of ``specs[label]``, all on the same cases
    and seeds) lack, each distinct baseline run once for the candidates that pair with it.
    ``groups``: baseline_groups(specs), when the caller has it. Returns True if Ctrl-C
    stopped it early."""
    import json

    from .._sweep import _progress_bar, execute

    first = next(iter(specs.values()))
    for spec in specs.values():  # the same cases and seeds for every candidate
        assert [c.id for c in spec.cases] == [c.id for c in first.cases] and spec.seeds == first.seeds
    groups = baseline_groups(specs) if groups is None else groups
    todo = _pending(specs, stores, groups)
    baselines = sum(len(g) for g in groups)
    total = (baselines + len(first.cases) * len(specs)) * len(first.seeds)
    if not todo:
        return False
    tasks, keys = [], {}
    for index, (case, who, seed, scenario) in enumerate(todo):
        tasks.append((index, ("json", json.dumps(scenario, sort_keys=True), first.base_dir), [], seed))
        keys[index] = (case.id, who, seed)
    bar = _progress_bar(total, progress, desc=desc, initial=total - len(todo))
    try:
        return execute(tasks, _journal_class()(stores, keys), workers=workers, client=client,
                       bar=bar)
    finally:
        if bar is not None:
            bar.close()
        for store in stores.values():
            store.close()


def league(matrix, out=None, candidates=None, workers=None, client=None, duration_us=None,
           warmup_us=None, seeds=None, limits=None, progress=True):
    """Runs several candidates against the matrix's baseline and ranks them.

    Args:
        matrix: a matrix JSON file or dict; its ``candidates`` (or ``candidate``) are the
            league unless ``candidates`` is given.
        out: output directory (default ``league-<matrix stem>``); resumes what is there.
        candidates: arm dicts (``{"name", "params", "label"}``) or ``NAME:p=v,...`` strings.
        workers, client, duration_us, warmup_us, seeds, limits, progress: as :func:`ab`.

    Returns:
        LeagueResult. Raises MatrixError for a bad matrix or candidate list.
    """
    from .report import case_table, write_report
    from .store import RunStore

    if workers is not None and client is not None:
        raise ValueError("give workers= or client=, not both")
    limits = limits or Limits()
    arms = candidate_arms(matrix, candidates)
    specs = {label: _load(matrix, arm, where, duration_us=duration_us, warmup_us=warmup_us,
                          seeds=seeds) for label, arm, where in arms}
    first = next(iter(specs.values()))
    if isinstance(matrix, dict):
        directory = Path(out) if out is not None else Path("league-matrix")
    else:
        directory = Path(out) if out is not None else Path(f"league-{Path(matrix).stem}")
    directory.mkdir(parents=True, exist_ok=True)
    stores = {label: RunStore(directory / label, spec) for label, spec in specs.items()}
    groups = baseline_groups(specs)
    interrupted = run_shared(specs, stores, workers=workers, client=client, progress=progress,
                             desc="nvmesim ab (league)", groups=groups)
    if interrupted:
        return LeagueResult(table=None, cases=None, disagreements=None, summary=[], results={},
                            directory=directory, interrupted=True)
    results, runs = {}, {}
    for label, spec in specs.items():
        stores[label].finish()
        runs[label] = stores[label].frame()
        cases = case_table(runs[label], spec, limits)
        write_report(directory / label, cases, spec, limits)
        results[label] = cases
    table = league_table(results, {label: arm for label, arm, _ in arms}, runs)
    long = _long_cases(results, first)
    disagree = disagreements(results, first)
    summary = league_summary(table, disagree, first, len(specs), sum(len(g) for g in groups))
    _write_league(directory, table, long, disagree, summary, results, specs, limits)
    return LeagueResult(table=table, cases=long, disagreements=disagree, summary=summary,
                        results=results, directory=directory, interrupted=False)


def _finite(series):
    values = [float(v) for v in series if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return values


def _median(values):
    values = sorted(values)
    if not values:
        return math.nan
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def _cpu_per_io_change(runs):
    """Per case: the candidate's busy CPU per I/O (1 - idle, over its IOPS, averaged over
    the seeds) over the baseline's, less one (the host's core count cancels); the median
    over the cases where both are known, in %. ``runs``: one candidate's run table."""
    ok = runs[runs["error"].isna() & (runs["iops"] > 0)]
    per_io = busy_per_io(ok).groupby([ok["case"], ok["arm"]]).mean()
    ratios = []
    for case in dict.fromkeys(ok["case"]):
        b, c = per_io.get((case, "baseline")), per_io.get((case, "candidate"))
        if b is not None and c is not None and math.isfinite(b) and math.isfinite(c) and b > 0:
            ratios.append(c / b - 1.0)
    return 100.0 * _median(ratios) if ratios else math.nan


def league_table(results, arms, runs):
    """One row per candidate (``results``: label -> case table; ``runs``: label -> run
    table), ranked: fewest confirmed
    regressions (throughput and p99 together), then most confirmed improvements, then the
    larger median gain, then the label."""
    import pandas as pd

    rows = []
    for label, cases in results.items():
        counts = cases["verdict"].value_counts()
        gains = cases[cases["verdict"] == "improvement"]["change_pct"]
        reads = cases[cases["rw"].isin(["read", "randread"])]
        arm = arms[label]
        rows.append({
            "candidate": label, "policy": arm["name"],
            "params": ", ".join(f"{k}={v}" for k, v in sorted(arm.get("params", {}).items())) or "defaults",
            "cases": len(cases),
            "improvements": int(counts.get("improvement", 0)),
            "regressions": int(counts.get("regression", 0)),
            "p99_regressions": int(cases["p99_regression"].fillna(False).astype(bool).sum()),
            "no_change": int(counts.get("no change", 0)),
            "too_variable": int(counts.get("too variable", 0)),
            "median_gain_pct": _median(_finite(gains)),
            "max_gain_pct": max(_finite(gains), default=math.nan),
            "median_change_pct": _median(_finite(cases["change_pct"])),
            "irqs_per_io_median": _median(_finite(cases["irqs_per_io_candidate"])),
            "irqs_per_io_reduction_on_reads_pct": _median(_finite(reads["irqs_per_io_reduction_pct"])),
            "cpu_per_io_change_pct": _cpu_per_io_change(runs[label]),
        })

    def rank_key(r):
        gain = r["median_gain_pct"]
        return (r["regressions"] + r["p99_regressions"], -r["improvements"],
                -(gain if math.isfinite(gain) else -math.inf), r["candidate"])

    rows.sort(key=rank_key)
    for i, r in enumerate(rows):
        r["rank"] = i + 1
    return pd.DataFrame(rows, columns=list(LEAGUE_COLUMNS))


def _labels_of(case):
    return {k: str(v) for k, v in case.labels.items()}


def _long_cases(results, spec):
    import pandas as pd

    rows = []
    for case_index, case in enumerate(spec.cases):
        for label, cases in results.items():
            r = cases.iloc[case_index]
            row = {"case": case.id, **_labels_of(case), "candidate": label}
            for col in ("verdict", "change_pct", "ci_low_pct", "ci_high_pct", "p99_verdict",
                        "p99_change_pct", "irqs_per_io_baseline", "irqs_per_io_candidate"):
                row[col] = r[col]
            rows.append(row)
    return pd.DataFrame(rows)


def disagreements(results, spec):
    """The cases where the candidates' confirmed verdicts differ (one improves where
    another does not, or regresses where another does not; "too variable" says nothing
    and is left out of the comparison): a DataFrame with each candidate's verdict and
    change, the cases where one improves and another regresses first."""
    import pandas as pd

    rows = []
    for case_index, case in enumerate(spec.cases):
        verdicts = {label: cases.iloc[case_index]["verdict"] for label, cases in results.items()}
        said = {v for v in verdicts.values() if v != "too variable"}
        if len(said) < 2:
            continue
        row = {"case": case.id, **_labels_of(case),
               "conflict": "improvement and regression" if {"improvement", "regression"} <= said
               else " and ".join(sorted(said))}
        for label, cases in results.items():
            row[f"{label}: verdict"] = verdicts[label]
            row[f"{label}: change (%)"] = cases.iloc[case_index]["change_pct"]
        rows.append(row)
    frame = pd.DataFrame(rows)
    if len(frame):
        frame = frame.sort_values("conflict", key=lambda s: s != "improvement and regression",
                                  kind="stable").reset_index(drop=True)
    return frame


def _pct(x):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:+.1f}%"


def league_summary(table, disagree, spec, n_candidates, baselines=None):
    """The league's summary sentences. ``baselines``: the baseline runs per seed (one per
    case when every candidate shares it, the default)."""
    cases, seeds = len(spec.cases), len(spec.seeds)
    baselines = cases if baselines is None else baselines
    runs = seeds * (baselines + cases * n_candidates)
    shared = ("the baseline's runs shared" if baselines == cases else
              "a baseline run shared by the candidates that run the same warm-up")
    lines = [f"{plural(n_candidates, 'candidate')} against {spec.baseline['name']} on "
             f"{plural(cases, 'case')}, {plural(seeds, 'seed')} per arm ({plural(runs, 'run')}: "
             f"{shared})."]
    for _, r in table.iterrows():
        text = (f"{int(r['rank'])}. {r['candidate']}: {plural(int(r['improvements']), 'confirmed improvement')}, "
                f"{plural(int(r['regressions']), 'throughput regression')}, "
                f"{plural(int(r['p99_regressions']), 'p99 regression')}, "
                f"{int(r['no_change'])} no material change, {int(r['too_variable'])} too variable")
        if int(r["improvements"]):
            text += f"; gain median {_pct(r['median_gain_pct'])}, maximum {_pct(r['max_gain_pct'])}"
        text += f"; CPU per I/O {_pct(r['cpu_per_io_change_pct'])} (median)."
        lines.append(text)
    if len(disagree):
        both = int((disagree["conflict"] == "improvement and regression").sum())
        lines.append(f"The candidates disagree on {plural(len(disagree), 'case')}"
                     + (f", {both} of them an improvement for one and a regression for another."
                        if both else "."))
    else:
        lines.append("The candidates agree on every case (too variable aside).")
    return lines


def _league_warmup(specs):
    """The league's warm-up as its report states it: one candidate's text when they all
    ran the same, else each candidate's."""
    texts = {label: warmup_text(spec) for label, spec in specs.items()}
    if len(set(texts.values())) == 1:
        return next(iter(texts.values()))
    return "; ".join(f"{label}: {text}" for label, text in texts.items())


def _write_league(directory, table, long, disagree, summary, results, specs, limits):
    from .report import _markdown_table, _png, heatmap

    directory = Path(directory)
    spec = next(iter(specs.values()))
    figures = {f"heatmap-{label}.png": _png(heatmap(results[label], specs[label]))
               for label in results}
    readable = table.rename(columns=_LEAGUE_HEADERS)
    title = f"League: {plural(len(results), 'candidate')} against {spec.baseline['name']}"
    setup = (f"Matrix: {spec.name} ({spec.path}). Seeds per arm: {len(spec.seeds)}, the same "
             f"for every arm. Simulated window per run: {spec.duration_us} us after "
             f"{_league_warmup(specs)}. Verdicts as in each candidate's own report "
             f"(permutation p < {limits.alpha:g}, bootstrap {100 * limits.confidence:g}% CI). "
             "Ranked by fewest confirmed regressions (throughput and p99), then most confirmed "
             "improvements, then median gain. CPU per I/O: the median over the cases of the "
             "candidate's busy CPU per I/O against the baseline's.")
    md = [f"# {title}", "", setup, "", "## Summary", "", *[f"- {s}" for s in summary], "",
          "## Ranking", "", _markdown_table(readable), "",
          "## Where the candidates disagree", "",
          _markdown_table(disagree) if len(disagree) else "Nowhere.", ""]
    for label in results:
        md += [f"## {label}: IOPS change by queue depth per workload", "",
               f"![heatmap {label}](heatmap-{label}.png)", "",
               f"Its own report: [{label}/report.md]({label}/report.md).", ""]

    def img(name):
        return (f'<img alt="{html.escape(name)}" src="data:image/png;base64,'
                f'{base64.b64encode(figures[name]).decode()}">')

    esc = html.escape
    page = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{esc(title)}</title>", f"<style>{REPORT_CSS}</style></head><body>",
            f"<h1>{esc(title)}</h1>", f"<p>{esc(setup)}</p>", "<h2>Summary</h2><ul>",
            *[f"<li>{esc(s)}</li>" for s in summary], "</ul>", "<h2>Ranking</h2>",
            readable.to_html(index=False, na_rep="", float_format="%.4g", border=0),
            "<h2>Where the candidates disagree</h2>",
            disagree.to_html(index=False, na_rep="", float_format="%.4g", border=0)
            if len(disagree) else "<p>Nowhere.</p>"]
    for label in results:
        page += [f"<h2>{esc(label)}: IOPS change by queue depth per workload</h2>",
                 img(f"heatmap-{label}.png"),
                 f'<p>Its own report: <a href="{esc(label)}/report.html">{esc(label)}/report.html</a>.</p>']
    page += ["</body></html>", ""]
    csv = {"league.csv": table, "league_cases.csv": long, "disagreements.csv": disagree}
    for name, frame in csv.items():
        write_text(directory / name, frame.to_csv(None, index=False, float_format="%.6g",
                                                  lineterminator="\n"), newline="")
    for name, data in figures.items():
        write_bytes(directory / name, data)
    write_text(directory / "league.md", "\n".join(md))
    write_text(directory / "league.html", "\n".join(page))


_LEAGUE_HEADERS = {
    "rank": "rank", "candidate": "candidate", "policy": "policy", "params": "parameters",
    "cases": "cases", "improvements": "confirmed improvements",
    "regressions": "throughput regressions", "p99_regressions": "p99 regressions",
    "no_change": "no material change", "too_variable": "too variable",
    "median_gain_pct": "median gain (%)", "max_gain_pct": "maximum gain (%)",
    "median_change_pct": "median change, all cases (%)",
    "irqs_per_io_median": "IRQs per I/O (median)",
    "irqs_per_io_reduction_on_reads_pct": "IRQs per I/O reduction on reads (median, %)",
    "cpu_per_io_change_pct": "CPU per I/O change (median, %)",
}
assert set(_LEAGUE_HEADERS) == set(LEAGUE_COLUMNS)
assert set(VERDICTS) == {"improvement", "regression", "no change", "too variable"}
