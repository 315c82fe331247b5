"""nvmesim.run: one simulation from Python."""

import json

from . import _core
from ._scenario import expand_wildcards, load as _load, make_source, normalize_overrides
from .result import Result

__all__ = ["run", "load", "schema"]


def load(scenario, overrides=None, seed=None, base_dir=None, **kwargs):
    """Validates a scenario with overrides without running it.

    Takes the same arguments as :func:`run`. Returns the resolved scenario (profiles
    inlined, defaults filled) as a dict; raises :class:`ScenarioError` if it is invalid.
    """
    source = make_source(scenario, base_dir)
    pairs = expand_wildcards(source, normalize_overrides(overrides, kwargs))
    return json.loads(_load(source, pairs, seed).resolved)


def run(scenario, overrides=None, seed=None, base_dir=None, progress=None, threads=None,
        check_invariants=False, **kwargs):
    """Runs one simulation and returns its :class:`Result`.

    Args:
        scenario: a scenario dict, a path to a scenario JSON file, a fio job file
            (``.fio``, ``.ini``, ``.job``; run on the default testbed, whose drives and
            host can then be changed with overrides), or a shipped scenario's name such
            as ``"default"``.
        overrides: mapping of path -> value, with the paths of ``nvmesim run --set``:
            ``"/jobs/0/iodepth"``, ``"jobs/0/iodepth"`` or ``"jobs.0.iodepth"``. A
            ``*`` stands for every element of an array: ``"jobs.*.iodepth"``. Values are
            Python values (``64``, ``"rate"``, ``{"name": "poll"}``), sent as JSON.
        seed: the run's seed; wins over the scenario and the overrides (``--seed``).
        base_dir: directory for relative profile file names (default: the scenario
            file's directory, or the shipped scenarios for a dict).
        progress: optional callable taking the fraction of simulated time done.
        threads: threads for a scenario whose drives, queues, jobs and cores form
            independent partitions (``nvmesim run --threads``); None: the machine's
            cores. The results do not depend on it.
        check_invariants: check the results against their invariants (docs/results.md,
            "Invariants"; ``nvmesim run --check-invariants``) and raise RuntimeError,
            listing the broken ones, if any breaks (a bug of the model). Always on in
            Debug builds.
        **kwargs: more overrides, with ``__`` or ``.`` between path components:
            ``policy__name="poll"``, ``jobs__0__iodepth=64``, ``duration_us=2000``.

    Returns:
        Result: ``result.data`` is the same document as the CLI's ``-o`` file.

    Raises:
        ScenarioError: the scenario or an override is invalid (``.path``, ``.message``).
        ValueError: ``threads`` is not an integer from 1 to 1024.
        RuntimeError: ``check_invariants`` and the results break an invariant.

    The interpreter lock is released while the simulation runs, so several threads can
    run simulations at the same time. Ctrl-C stops a run with KeyboardInterrupt.
    """
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or not 1 <= threads <= 1024):
        raise ValueError(f"threads: must be an integer from 1 to 1024, got {threads!r}")
    if progress is not None and not callable(progress):
        # Found now, not at the first progress report after the simulation has started.
        raise TypeError(f"progress: must be a callable taking the fraction done, or None, got {progress!r}")
    source = make_source(scenario, base_dir)
    pairs = expand_wildcards(source, normalize_overrides(overrides, kwargs))
    loaded = _load(source, pairs, seed)
    text, info = _core.run(loaded, progress, threads or 0, bool(check_invariants))
    return Result(text, info)


def schema():
    """The JSON Schema of scenario files, as a dict."""
    return json.loads(_core.scenario_schema())
