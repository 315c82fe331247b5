"""Searches a policy's parameters over an A/B matrix (``nvmesim tune``).

Each trial is one A/B evaluation (nvmesim.ab) of the policy with the trial's parameters
against the matrix's baseline on the **tuning half** of the matrix's cases (the even
case numbers); the baseline's runs are shared by every trial. A trial's value is the
median gain of its confirmed improvements (0 with none) less 1000 per confirmed
regression (throughput or p99): a trial with a confirmed regression always loses to one
without. Optuna proposes the trials (TPE on that value, or NSGA-II on gain, p99 change and
CPU per I/O); the best trial's parameters are then judged once on the **held-out half**
(the odd case numbers), which no trial saw, so the verdicts there are not fitted to.

Resumable: every finished trial is a line of ``DIR/trials.jsonl`` and every run a row of
its trial's run table (``DIR/trials/tNNNN/runs.csv``); the sampler is re-created before
each trial, seeded from the study's seed and the trial's number, with the finished trials
as its history, so a resumed study proposes exactly what an uninterrupted one does.
See docs/tune.md.
"""

import dataclasses
import hashlib
import json
import math
import numbers
from dataclasses import dataclass
from pathlib import Path

from ..ab.league import run_shared
from ..ab.matrix import MatrixError, load_matrix
from ..ab.verdict import Limits

__all__ = ["SAMPLERS", "TuneResult", "parse_param", "pareto_front", "tune"]

#: What a confirmed regression costs a trial's value: more than any gain can make up.
REGRESSION_PENALTY = 1000.0
SAMPLERS = ("tpe", "nsga2")


@dataclass
class TuneResult:
    """What :func:`tune` returns.

    Attributes:
        trials: DataFrame, one row per trial (trials.csv): parameters, value, gain,
            regressions, p99 and CPU-per-I/O change.
        best: the best trial's policy block ``{"name", "params"}`` (best_policy.json).
        front: DataFrame, the Pareto front of the trials without a confirmed regression
            (gain up, p99 change and CPU per I/O change down; pareto.csv).
        heldout: the held-out half's case table (None with an objective instead of
            a matrix run), its summary in ``summary``.
        summary: the report's summary sentences.
        directory: where trials.jsonl, trials.csv, best_policy.json, pareto.csv/png,
            report.md and the trials' and held-out runs are.
        interrupted: True when Ctrl-C stopped it; run again to resume (no report).
    """

    trials: object
    best: dict
    front: object
    heldout: object
    summary: list
    directory: Path
    interrupted: bool


def parse_param(text):
    """``name=lo:hi`` (integers, lo <= hi) as ``(name, lo, hi)``."""
    name, eq, span = text.partition("=")
    lo, colon, hi = span.partition(":")
    if not eq or not colon or not name.strip():
        raise ValueError(f"--param {text!r}: give name=lo:hi")
    try:
        lo, hi = int(lo), int(hi)
    except ValueError:
        raise ValueError(f"--param {text!r}: lo and hi must be integers") from None
    if lo > hi:
        raise ValueError(f"--param {text!r}: lo {lo} is above hi {hi}")
    return name.strip(), lo, hi


def _range(name, span):
    """A ``{name: (lo, hi)}`` entry as ``(lo, hi)``: two integers, lo <= hi (as
    parse_param's); int() would make 1.5 one and a reversed range would search nothing."""
    if not isinstance(span, (list, tuple)) or len(span) != 2:
        raise ValueError(f"params[{name!r}]: must be (lo, hi), got {span!r}")
    for v in span:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise ValueError(f"params[{name!r}]: lo and hi must be integers, got {span!r}")
    lo, hi = int(span[0]), int(span[1])
    if lo > hi:
        raise ValueError(f"params[{name!r}]: lo {lo} is above hi {hi}")
    return lo, hi


def _half(spec, which):
    """The matrix's cases of one half (0: even case numbers, tuning; 1: odd, held out)."""
    cases = spec.cases[which::2]
    digest = hashlib.sha256(f"{spec.digest}/half{which}".encode()).hexdigest()
    return dataclasses.replace(spec, cases=cases, digest=digest)


def _trial_value(gain, regressions):
    return (0.0 if math.isnan(gain) else gain) - REGRESSION_PENALTY * regressions


def _figures(cases, runs):
    """A trial's figures from its case table: gain (median of its confirmed improvements,
    NaN with none), confirmed regressions (throughput and p99), median p99 change and
    median CPU-per-I/O change over the cases."""
    from ..ab.league import _cpu_per_io_change, _finite, _median

    gains = _finite(cases[cases["verdict"] == "improvement"]["change_pct"])
    regressions = int((cases["verdict"] == "regression").sum()) + \
        int(cases["p99_regression"].fillna(False).astype(bool).sum())
    return {"gain_pct": _median(gains), "improvements": len(gains), "regressions": regressions,
            "p99_change_pct": _median(_finite(cases["p99_change_pct"])),
            "cpu_per_io_change_pct": _cpu_per_io_change(runs)}


def pareto_front(trials):
    """The trials without a confirmed regression that no other such trial beats on every
    one of gain (higher), p99 change and CPU per I/O change (lower), best gain first."""
    ok = trials[(trials["regressions"] == 0) & trials["error"].isna()].copy()
    if not len(ok):
        return ok
    cols = ("gain_pct", "p99_change_pct", "cpu_per_io_change_pct")
    vals = ok[list(cols)].fillna({"gain_pct": 0.0, "p99_change_pct": 0.0,
                                  "cpu_per_io_change_pct": 0.0}).to_numpy()
    keep = []
    for i, a in enumerate(vals):
        dominated = any((b[0] >= a[0] and b[1] <= a[1] and b[2] <= a[2]) and
                        (b[0] > a[0] or b[1] < a[1] or b[2] < a[2]) for b in vals)
        keep.append(not dominated)
    return ok[keep].sort_values(["gain_pct", "number"], ascending=[False, True],
                                na_position="last").reset_index(drop=True)


def _read_journal(path, names):
    if not path.exists():
        return []
    done = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            break  # a line torn by a kill: the trial is run again
        if sorted(record["params"]) != sorted(names):
            raise MatrixError("", f"{path} holds trials of other parameters; give another -o")
        done.append(record)
    return done


def _ask(done, space, sampler_name, seed, number):
    """The parameters of trial ``number`` given the finished ``done``: a fresh sampler
    seeded from (seed, number) with them as its history, so the same history always
    proposes the same trial."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    dists = {name: optuna.distributions.IntDistribution(lo, hi) for name, (lo, hi) in space.items()}
    trial_seed = (seed * 1_000_003 + number) % 2**32
    if sampler_name == "tpe":
        study = optuna.create_study(direction="maximize",
                                    sampler=optuna.samplers.TPESampler(seed=trial_seed))
    else:
        study = optuna.create_study(directions=["maximize", "minimize", "minimize"],
                                    sampler=optuna.samplers.NSGAIISampler(seed=trial_seed))
    for record in done:
        values = _objectives(record, sampler_name)
        study.add_trial(optuna.trial.create_trial(
            params=record["params"], distributions=dists,
            **({"value": values[0]} if sampler_name == "tpe" else {"values": values})))
    return study.ask(fixed_distributions=dists).params


def _objectives(record, sampler_name):
    if sampler_name == "tpe":
        return [record["value"]]
    penalty = REGRESSION_PENALTY * record["regressions"]
    p99 = record["p99_change_pct"]
    cpu = record["cpu_per_io_change_pct"]
    return [record["value"], (0.0 if p99 is None or math.isnan(p99) else p99) + penalty,
            (0.0 if cpu is None or math.isnan(cpu) else cpu) + penalty]


def _nan(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def tune(matrix, policy, params, trials=20, out=None, sampler="tpe", seed=1, workers=None,
         client=None, duration_us=None, warmup_us=None, seeds=None, limits=None, progress=True,
         objective=None):
    """Searches ``policy``'s parameters over ``matrix``'s tuning half and judges the best
    on its held-out half.

    Args:
        matrix: an A/B matrix file or dict (its baseline is the baseline; its candidate is
            replaced by ``policy``).
        policy: the policy to tune, by name.
        params: ``{name: (lo, hi)}`` or ``["name=lo:hi", ...]``: the integer ranges searched.
        trials: trials in all (a resumed study runs those still missing).
        out: output directory (default ``tune-<matrix stem>-<policy>``).
        sampler: ``"tpe"`` (the trial value) or ``"nsga2"`` (gain, p99 change, CPU per I/O).
        seed: the sampler's seed.
        workers, client, duration_us, warmup_us, seeds, limits, progress: as nvmesim.ab.
        objective: for tests: ``f(params) -> {"gain_pct", "regressions", "p99_change_pct",
            "cpu_per_io_change_pct"}`` in place of running the matrix (no held-out run).

    Returns:
        TuneResult. Raises MatrixError for a bad matrix, policy or parameter range.
    """
    import pandas as pd

    from ..ab.report import case_table, write_report
    from ..ab.store import RunStore

    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {', '.join(SAMPLERS)}, got {sampler!r}")
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    if isinstance(params, (list, tuple)):
        parsed = {}
        for text in params:
            name, lo, hi = parse_param(text)
            if name in parsed:  # a dict would keep the last range without a word
                raise ValueError(f"--param {text!r}: {name} is given twice")
            parsed[name] = (lo, hi)
        params = parsed
    if not params:
        raise ValueError("give at least one parameter range (name=lo:hi)")
    space = {name: _range(name, span) for name, span in params.items()}
    limits = limits or Limits()
    stem = "matrix" if isinstance(matrix, dict) else Path(matrix).stem
    directory = Path(out) if out is not None else Path(f"tune-{stem}-{policy}")
    options = dict(duration_us=duration_us, warmup_us=warmup_us, seeds=seeds)

    def spec_of(values, validate=True):
        try:
            return load_matrix(matrix, candidate={"name": policy, "params": dict(values)},
                               validate=validate, **options)
        except MatrixError as exc:
            if exc.path.startswith("/candidate"):
                raise MatrixError(f"--policy {policy}" + exc.path[len("/candidate"):],
                                  exc.message) from None
            raise

    if objective is None:
        # Before anything runs: the policy exists, and each end of each range is inside the
        # parameter's own range (set alone, the others at their defaults). A rule between
        # two parameters (watermark's inflight_high > inflight_low) makes some of a range's
        # pairs invalid: those trials are recorded as invalid, not refused here.
        for name, (lo, hi) in space.items():
            for value in sorted({lo, hi}):
                try:
                    spec_of({name: value})
                except MatrixError as exc:
                    if "is outside [" in exc.message or "unknown" in exc.message:
                        raise
    directory.mkdir(parents=True, exist_ok=True)
    # What the journal's trials depend on: resuming into a study of another matrix,
    # policy, ranges, sampler or seed is refused (its trials would mean something else).
    identity = {"format": "nvmesim-tune/1", "policy": policy,
                "space": {k: list(v) for k, v in sorted(space.items())}, "sampler": sampler,
                "seed": seed, "objective": "given" if objective else
                load_matrix(matrix, candidate={"name": policy}, validate=False, **options).digest}
    marker = directory / "study.json"
    if marker.exists():
        if json.loads(marker.read_text(encoding="utf-8")) != identity:
            raise MatrixError("", f"{directory} holds a study of another matrix, policy, parameter "
                                  "ranges, sampler or seed; give another -o")
    else:
        marker.write_text(json.dumps(identity, indent=1) + "\n", encoding="utf-8")
    journal = directory / "trials.jsonl"
    done = _read_journal(journal, list(space))
    while len(done) < trials:
        number = len(done)
        values = _ask(done, space, sampler, seed, number)
        error = None
        if objective is not None:
            figures = dict(objective(dict(values)))
            figures.setdefault("improvements", None)
        else:
            try:
                spec = _half(spec_of(values), 0)
            except MatrixError as exc:  # e.g. inflight_high not above inflight_low
                spec, error = None, str(exc)
            if spec is None:
                figures = {"gain_pct": math.nan, "improvements": 0, "regressions": 0,
                           "p99_change_pct": math.nan, "cpu_per_io_change_pct": math.nan}
            else:
                label = f"t{number:04d}"
                specs = {label: spec}
                stores = {label: RunStore(directory / "trials" / label, spec)}
                # The first earlier trial that ran lends its baseline rows: only this
                # trial's own runs run. Not when its baseline runs another warm-up (the
                # arms of a case share the longest warm-up their policies ask for, and a
                # parameter may move the candidate's: policy C's cycle).
                donor = next((r for r in done if not r.get("error")), None)
                if donor is not None:
                    donor_label = f"t{donor['number']:04d}"
                    lender = _half(spec_of(donor["params"]), 0)
                    if [c.scenarios["baseline"] for c in lender.cases] == \
                            [c.scenarios["baseline"] for c in spec.cases]:
                        specs[donor_label] = lender
                        stores[donor_label] = RunStore(directory / "trials" / donor_label, lender)
                if run_shared(specs, stores, workers=workers, client=client, progress=progress,
                              desc=f"nvmesim tune (trial {number + 1} of {trials})"):
                    return TuneResult(trials=None, best=None, front=None, heldout=None,
                                      summary=[], directory=directory, interrupted=True)
                stores[label].finish()
                runs = stores[label].frame()
                figures = _figures(case_table(runs, spec, limits), runs)
        record = {"number": number, "params": dict(values),
                  "value": _trial_value(figures["gain_pct"], figures["regressions"]),
                  **{k: _nan(v) for k, v in figures.items()}}
        if error:  # the parameters do not make a valid policy: the worst value of all
            record.update(value=-REGRESSION_PENALTY ** 2, error=error)
        with open(journal, "a", encoding="utf-8") as f:
            f.write(json.dumps(record, sort_keys=True) + "\n")
            f.flush()
        done.append(record)

    table = pd.DataFrame([{"number": r["number"], **{f"param_{k}": v for k, v in r["params"].items()},
                           "value": r["value"], "gain_pct": r.get("gain_pct"),
                           "improvements": r.get("improvements"), "regressions": r["regressions"],
                           "p99_change_pct": r.get("p99_change_pct"),
                           "cpu_per_io_change_pct": r.get("cpu_per_io_change_pct"),
                           "error": r.get("error")}
                          for r in done[:trials]]).astype({"gain_pct": float, "p99_change_pct": float,
                                                           "cpu_per_io_change_pct": float})
    best_row = max(done[:trials], key=lambda r: (r["value"], -r["number"]))
    best = {"name": policy, "params": dict(best_row["params"])}
    front = pareto_front(table)
    heldout = None
    if objective is None:
        held = _half(spec_of(best["params"]), 1)
        held_store = {"heldout": RunStore(directory / "heldout", held)}
        # The held-out half's baseline rows are its own (no trial ran those cases).
        if run_shared({"heldout": held}, held_store, workers=workers, client=client,
                      progress=progress, desc="nvmesim tune (held-out half)"):
            return TuneResult(trials=table, best=best, front=front, heldout=None, summary=[],
                              directory=directory, interrupted=True)
        held_store["heldout"].finish()
        heldout = case_table(held_store["heldout"].frame(), held, limits)
        held_lines = write_report(directory / "heldout", heldout, held, limits)
    else:
        held_lines = []
    from .report import write_tune_report

    summary = write_tune_report(directory, table, best, best_row, front, held_lines, space,
                                sampler, seed, trials, tuned_cases=None if objective else
                                len(_half(spec_of(best["params"], validate=False), 0).cases))
    return TuneResult(trials=table, best=best, front=front, heldout=heldout, summary=summary,
                      directory=directory, interrupted=False)
