"""nvmesim.sweep: many runs over a grid of parameters, as one pandas DataFrame.

Runs go serially, over local processes (``workers=N``) or on a Dask distributed cluster
(``client=``). Every run is a pure function of (scenario, overrides, seed), so the three
give identical DataFrames; rows are in grid order whatever order the runs finish in.
"""

import concurrent.futures as cf
import functools
import itertools
import json
import math
import multiprocessing
import numbers
import signal
import uuid
import warnings

from ._scenario import (
    apply_wildcards,
    assignments,
    check_seed,
    load,
    make_source,
    normalize_overrides,
    to_pointer,
    wildcard_map,
)
from .errors import ScenarioError
from .result import Result

__all__ = ["sweep", "METRIC_COLUMNS"]

#: The figures every sweep row carries (see Result.metrics), in column order.
METRIC_COLUMNS = (
    "iops", "bytes_per_s", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "p9999_ns",
    "max_ns", "irqs_per_io", "completions_per_irq", "interrupts", "spurious_irqs",
    "cpu_hardirq", "cpu_softirq", "cpu_irq_thread", "cpu_app", "cpu_idle", "cpu_busy_max",
    "mode_switches", "bound_by",
)


def _run_task(task, threads=0):
    """Runs one sweep point in whatever process gets it; never raises for a bad point.

    ``threads`` is the run's thread count (0: the machine's cores, for a serial sweep).

    ``task`` is ``(index, source, assignment strings, seed)``. Returns
    ``(index, seed, metrics or None, error string or None)``.
    """
    from . import _core  # a fresh worker process imports the package here

    index, source, strings, seed = task
    kind, payload, base = source
    try:
        if kind == "json":
            loaded = _core.load_json(payload, base, strings, seed)
        else:
            loaded = _core.load_file(payload, base, strings, seed)
        text, _info = _core.run(loaded, None, threads)
        result = Result(text)
        return index, result.seed, result.metrics(), None
    except ScenarioError as exc:
        return index, seed, None, f"ScenarioError: {exc}"
    except Exception as exc:  # noqa: BLE001 - a sweep reports, it does not stop
        return index, seed, None, f"{type(exc).__name__}: {exc}"


def _check_keys(source, keys, pointers, points, fixed_pairs, mapping):
    """Raises ScenarioError for a grid key that names no scenario field (a typo), before
    any run: every row would fail with the same "unknown key". A key whose values are
    only bad for some points is not this: those rows carry their own error."""
    for column, (key, pointer) in enumerate(zip(keys, pointers)):
        value = next((point[column] for point in points if _is_value(point[column])), None)
        if value is None:
            continue
        try:
            load(source, apply_wildcards(list(fixed_pairs) + [(pointer, value)], mapping))
        except ScenarioError as exc:
            concrete = mapping.get(pointer, [pointer])
            if exc.message == "unknown key" and any(c == exc.path or c.startswith(exc.path + "/") for c in concrete):
                raise ScenarioError(exc.path, f"unknown key: grid key {key!r} names no scenario field") from None


def _ignore_sigint():
    # Ctrl-C in a terminal reaches the whole process group; only the parent acts on it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _label(key, pointer):
    """A short column name for a grid key: its last path component that is not an
    index or ``*``, or the component before a trailing ``name`` (``policy.name`` ->
    ``policy``, ``jobs.*.iodepth`` -> ``iodepth``)."""
    parts = [p for p in pointer.split("/") if p and p != "*" and not p.isdigit()]
    if not parts:
        return key
    if parts[-1] == "name" and len(parts) > 1:
        return parts[-2]
    return parts[-1]


def _points(grid):
    """The grid as ``(keys, [tuple of values per point])``."""
    if isinstance(grid, dict):
        keys = list(grid)
        for key, values in grid.items():
            if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
                raise TypeError(f"grid[{key!r}] must be a list of values")
        lists = [list(v) for v in grid.values()]
        for key, values in zip(keys, lists):
            if not values:  # the product would be empty: a sweep of no runs
                raise ValueError(f"grid[{key!r}] is empty: give at least one value")
        return keys, list(itertools.product(*lists))
    points = list(grid)
    if not points:
        raise ValueError("grid is an empty list: give at least one point ([{}] is the base scenario alone)")
    keys = []
    for point in points:
        if not isinstance(point, dict):
            raise TypeError("grid must be a dict of lists, or a list of dicts")
        keys.extend(k for k in point if k not in keys)
    return keys, [tuple(p.get(k, _MISSING) for k in keys) for p in points]


def _progress_bar(total, enabled, desc="nvmesim sweep", initial=0):
    """A tqdm bar, or None. In Jupyter with ipywidgets: a widget that disappears when
    done (leave=False). Elsewhere a text bar on stderr, shown only when stderr is a
    terminal: a notebook without ipywidgets, a log file or a pipe would get every
    redraw as a line of its own (an executed notebook flooded with bars)."""
    if not enabled:
        return None
    try:
        import ipywidgets  # noqa: F401  (tqdm.auto needs it inside Jupyter)
        from tqdm.auto import tqdm
    except ImportError:
        from tqdm import tqdm
    widget = tqdm.__module__ == "tqdm.notebook"
    return tqdm(total=total, initial=initial, desc=desc, unit="run", dynamic_ncols=True,
                leave=not widget, disable=False if widget else None)


def sweep(base, grid, seeds=None, workers=None, client=None, progress=True, labels=None,
          overrides=None, base_dir=None, equal_warmup=True, **fixed):
    """Runs ``base`` at every point of ``grid`` with every seed; one row per run.

    Args:
        base: the scenario, as for :func:`nvmesim.run` (dict, path, fio job file, or a
            shipped scenario's name such as ``"default"``).
        grid: ``{path: [values]}``: the cartesian product of the lists, first key
            slowest; or a list of ``{path: value}`` dicts, one per point. Paths are those
            of ``run``'s overrides; ``*`` stands for every element of an array
            (``"jobs.*.iodepth"``).
        seeds: list of seeds, each point runs once per seed (an int is one seed). None:
            the scenario's own seed.
        workers: number of local worker processes; None or 1 runs in this process.
        client: a ``dask.distributed.Client``: runs go to its cluster instead (the
            workers must be able to ``import nvmesim``).
        progress: show a tqdm progress bar.
        labels: ``{path: column name}`` for the swept parameters' columns. By default a
            path's last meaningful component: ``policy.name`` -> ``policy``,
            ``jobs.*.iodepth`` -> ``iodepth``.
        overrides, **fixed: overrides applied to every run (e.g.
            ``duration_us=2000``), as for ``run``.
        base_dir: as for ``run``.
        equal_warmup: the loader lengthens the warm-up of a policy whose first decision
            comes after it (policy C's first 50 ms cycle), and of jobs that write a drive
            whose drawn initial state takes longer to work off, for that point only; its rows
            would then be measured later in the drives' lives than the other points'
            (a drive's drawn write-buffer and GC state is still settling after a few ms).
            True (the default): points that give the same warm-up all run the longest
            one any of them is lengthened to, with a warning saying so. False: each
            point runs its own.

    Returns:
        pandas.DataFrame: one row per (point, seed) in grid order then seed order, with
        the swept parameters' columns, ``seed``, the figures of
        :data:`METRIC_COLUMNS` (IOPS, latency percentiles in ns, IRQs per I/O,
        completions per IRQ, CPU fractions averaged over the host's cores, mode
        switches, the bounding resource) and ``error`` (None, or why that run failed:
        its figures are then NaN). ``df.attrs["params"]`` maps columns to paths;
        ``df.attrs["warmup_us"]`` lists each row's warm-up as run (None where its
        point does not load).

    A failing point does not stop the sweep. On KeyboardInterrupt the runs not started
    are cancelled and the rows done so far are returned, with a warning and
    ``df.attrs["interrupted"] = True``.
    """
    import pandas as pd

    if workers is not None and client is not None:
        raise ValueError("give workers= or client=, not both")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1):
        raise ValueError(f"workers: must be an integer >= 1 (or None: in this process), got {workers!r}")
    source = make_source(base, base_dir)
    fixed_pairs = normalize_overrides(overrides, fixed)
    keys, points = _points(grid)
    pointers = [to_pointer(k) for k in keys]
    labels = dict(labels or {})
    columns = [labels.get(k, _label(k, p)) for k, p in zip(keys, pointers)]
    reserved = set(METRIC_COLUMNS) | {"seed", "error"}
    if len(set(columns)) != len(columns) or reserved & set(columns):
        columns = [labels.get(k, k) for k in keys]
    if seeds is None:
        seed_list = [None]
    elif isinstance(seeds, (str, bytes, dict)) or not hasattr(seeds, "__iter__"):
        seed_list = [check_seed(seeds, "seeds")]
    else:
        seed_list = [check_seed(s, f"seeds[{i}]") for i, s in enumerate(seeds)]
        if not seed_list:
            raise ValueError("seeds: an empty list runs nothing; give seeds=None for the scenario's own seed")

    mapping = wildcard_map(source, pointers + [p for p, _ in fixed_pairs])
    load(source, apply_wildcards(fixed_pairs, mapping))  # a bad base fails here, once
    _check_keys(source, keys, pointers, points, fixed_pairs, mapping)

    point_pairs = [apply_wildcards(list(fixed_pairs) + [(p, v) for p, v in zip(pointers, point) if _is_value(v)],
                                   mapping) for point in points]
    warmups = _warmups(source, point_pairs)
    if equal_warmup:
        point_pairs, warmups = _equalise_warmups(point_pairs, warmups)
    tasks = []
    for i, pairs in enumerate(point_pairs):
        strings = assignments(pairs)
        for j, seed in enumerate(seed_list):
            tasks.append((i * len(seed_list) + j, source, strings, seed))

    outcomes = {}
    bar = _progress_bar(len(tasks), progress)
    try:
        interrupted = execute(tasks, outcomes, workers=workers, client=client, bar=bar)
    finally:
        if bar is not None:
            bar.close()

    rows = []
    for index in sorted(outcomes):
        seed, metrics, error = outcomes[index]
        point = points[index // len(seed_list)]
        row = {c: (v if _is_value(v) else None) for c, v in zip(columns, point)}
        row["seed"] = seed
        for name in METRIC_COLUMNS:
            row[name] = metrics.get(name) if metrics else (None if name == "bound_by" else math.nan)
        if metrics:
            row.update({k: v for k, v in metrics.items() if k not in row})
        row["error"] = error
        rows.append(row)
    order = columns + ["seed", *METRIC_COLUMNS]
    extra = [k for row in rows for k in row if k not in order and k != "error"]
    frame = pd.DataFrame(rows, columns=order + list(dict.fromkeys(extra)) + ["error"])
    frame.attrs["params"] = {c: k for c, k in zip(columns, keys)}
    frame.attrs["warmup_us"] = [warmups[index // len(seed_list)][1] if warmups[index // len(seed_list)] else None
                                for index in sorted(outcomes)]
    frame.attrs["interrupted"] = interrupted
    if interrupted:
        warnings.warn(
            f"sweep interrupted: returning the {len(rows)} of {len(tasks)} runs that finished",
            RuntimeWarning,
            stacklevel=2,
        )
    return frame


def _warmups(source, point_pairs):
    """Per point: (the warm-up it sets, or None for the scenario's own; the one it runs
    after the loader lengthened it to cover its policy's first decision, in us); None for
    a point that does not load (its runs report why)."""
    out = []
    for pairs in point_pairs:
        given = next((v for p, v in reversed(pairs) if p == "/warmup_us"), None)
        try:
            resolved = json.loads(load(source, pairs).resolved)["warmup_us"]
        except Exception:  # noqa: BLE001 - its runs report the error, the sweep goes on
            out.append(None)
            continue
        out.append((given, int(resolved)))
    return out


def _equalise_warmups(point_pairs, warmups):
    """Points that give the same warm-up run the longest one any of them runs: a policy
    whose first decision the loader covered would otherwise be measured later in the
    drives' lives than the points it is compared with. A warm-up that reaches the first
    decision is not lengthened again, so setting it is enough. Warns when it lengthens."""
    longest = {}
    for w in warmups:
        if w:
            longest[w[0]] = max(longest.get(w[0], 0), w[1])
    pairs_out, warmups_out, changed = [], [], {}
    for pairs, w in zip(point_pairs, warmups):
        if w and w[1] != longest[w[0]]:
            pairs = pairs + [("/warmup_us", longest[w[0]])]
            changed[(w[1], longest[w[0]])] = changed.get((w[1], longest[w[0]]), 0) + 1
            w = (w[0], longest[w[0]])
        pairs_out.append(pairs)
        warmups_out.append(w)
    if changed:
        what = "; ".join(f"{n} of them from {a} us to {b} us" for (a, b), n in sorted(changed.items()))
        warnings.warn(
            f"sweep: {sum(changed.values())} of {len(point_pairs)} points run a longer warm-up ({what}): "
            "another point's policy makes its first decision after the given warm-up, or its jobs write a "
            "drive whose drawn state takes longer to work off, and the loader lengthens that point's; "
            "every point with the same warm-up runs the longest, so that rows compare the drives at the "
            "same age (equal_warmup=False keeps each point's own; "
            "df.attrs['warmup_us'] has each row's)",
            RuntimeWarning,
            stacklevel=3,
        )
    return pairs_out, warmups_out


def execute(tasks, outcomes, workers=None, client=None, bar=None):
    """Runs sweep tasks serially, in ``workers`` local processes or on a Dask ``client``.

    ``tasks`` are ``(index, source, assignment strings, seed)``. Each outcome is stored
    as ``outcomes[index] = (seed, metrics or None, error or None)`` the moment its run
    finishes, so ``outcomes`` may be a mapping that writes through to disk (nvmesim.ab's
    resumable run table). Returns True when Ctrl-C stopped the runs early.
    """
    if client is not None:
        return _run_dask(client, tasks, outcomes, bar)
    if workers is not None and workers > 1:
        return _run_processes(workers, tasks, outcomes, bar)
    return _run_serial(tasks, outcomes, bar)


class _Missing:
    """Marks a key that a point of a list-of-dicts grid does not set."""

    def __repr__(self):
        return "<not set>"


_MISSING = _Missing()


def _is_value(v):
    return v is not _MISSING


def _record(outcomes, outcome, bar):
    index, seed, metrics, error = outcome
    outcomes[index] = (seed, metrics, error)
    if bar is not None:
        bar.update(1)


def _run_serial(tasks, outcomes, bar):
    try:
        for task in tasks:
            _record(outcomes, _run_task(task), bar)
    except KeyboardInterrupt:
        return True
    return False


def _run_processes(workers, tasks, outcomes, bar):
    # forkserver: workers do not inherit this process's threads (tqdm, Dask, Jupyter).
    context = multiprocessing.get_context("forkserver")
    pool = cf.ProcessPoolExecutor(max_workers=min(workers, len(tasks) or 1),
                                  mp_context=context, initializer=_ignore_sigint)
    # The sweep is parallel across points: one thread per run, so N workers use N cores
    # (a run's results do not depend on its thread count).
    run_one = functools.partial(_run_task, threads=1)
    futures = {pool.submit(run_one, t): t for t in tasks}
    try:
        for future in cf.as_completed(futures):
            _record(outcomes, _outcome(future, futures[future]), bar)
    except KeyboardInterrupt:
        for future, task in futures.items():
            if future.done() and not future.cancelled() and future.exception() is None \
                    and task[0] not in outcomes:
                _record(outcomes, future.result(), bar)
        # The runs in progress are abandoned: stop their processes rather than wait for
        # them (the workers ignore SIGINT).
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        return True
    pool.shutdown(wait=True)
    return False


def _run_dask(client, tasks, outcomes, bar):
    from distributed import as_completed

    prefix = f"nvmesim-run-{uuid.uuid4().hex[:12]}"
    # One thread per run: Dask's workers already share out the cores.
    futures = client.map(functools.partial(_run_task, threads=1), tasks, pure=False,
                         key=[f"{prefix}-{t[0]}" for t in tasks])
    by_key = {f.key: t for f, t in zip(futures, tasks)}
    try:
        for future in as_completed(futures):
            _record(outcomes, _outcome(future, by_key[future.key]), bar)
    except KeyboardInterrupt:
        for future in futures:
            task = by_key[future.key]
            if future.status == "finished" and task[0] not in outcomes:
                _record(outcomes, future.result(), bar)
        client.cancel([f for f in futures if not f.done()])
        return True
    return False


def _outcome(future, task):
    """A finished future's outcome; a crashed worker becomes an error row."""
    try:
        return future.result()
    except Exception as exc:  # noqa: BLE001
        return task[0], task[3], None, f"{type(exc).__name__}: {exc}"
