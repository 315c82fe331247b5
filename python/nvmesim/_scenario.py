"""Turning the user's ways of naming a scenario and overrides into engine calls.

A *source* is a small picklable tuple that says where a scenario comes from, so that
sweeps can ship it to worker processes or Dask workers:

* ``("json", text, base_dir)`` for a scenario given as a dict;
* ``("file", path, base_dir)`` for a scenario JSON file or a fio job file.

Overrides are kept as a list of ``(pointer, value)`` pairs and handed to the engine as
``"/json/pointer=<json text>"`` strings, exactly what ``nvmesim run --set`` takes.
"""

import json
import math
import numbers
import os
from pathlib import Path

from . import _core
from .errors import ScenarioError

def _token(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def _non_finite(value, pointer=""):
    """The JSON pointer under ``pointer`` of the first nan or infinite float in
    ``value``, else None. A walk without recursion: a document built in Python may be
    deeply nested."""
    stack = [(pointer, value)]
    while stack:
        at, v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return at
        if isinstance(v, dict):
            stack.extend((f"{at}/{_token(k)}", x) for k, x in reversed(list(v.items())))
        elif isinstance(v, (list, tuple)):
            stack.extend((f"{at}/{i}", x) for i, x in reversed(list(enumerate(v))))
    return None


def _json_text(value, pointer):
    """``value`` as JSON text, or ScenarioError at the pointer of a nan or infinite
    number: json.dumps writes them as NaN/Infinity, which is no JSON, so the engine read
    a dict holding one as a bare string ("must be an object", at the wrong place)."""
    bad = _non_finite(value, pointer)
    if bad is not None:
        raise ScenarioError(bad, "must be a finite number (nan and infinity are not JSON)")
    return json.dumps(value)


def default_scenarios_dir():
    """Directory holding the shipped scenarios (``default.json``) and profiles."""
    return _core.default_scenarios_dir()


def make_source(scenario, base_dir=None):
    """Normalises a scenario argument to a source tuple.

    Args:
        scenario: a dict (a scenario document), a path to a scenario JSON file or a fio
            job file (``.fio``/``.ini``/``.job``: run on the default testbed), or the
            name of a shipped scenario such as ``"default"``.
        base_dir: directory against which relative profile and CDF file names are
            resolved; defaults to the file's directory (for a path) or the shipped
            scenarios directory (for a dict).
    """
    base = "" if base_dir is None else os.fspath(base_dir)
    if isinstance(scenario, dict):
        return ("json", _json_text(scenario, ""), base)
    if isinstance(scenario, (str, os.PathLike)):
        path = Path(scenario)
        if not path.exists():
            shipped = Path(default_scenarios_dir()) / path
            for candidate in (shipped, shipped.with_name(shipped.name + ".json")):
                if candidate.is_file():
                    path = candidate
                    break
            else:
                raise ScenarioError("", f"no such scenario file: {os.fspath(scenario)}")
        return ("file", os.fspath(path.resolve()), base)
    raise TypeError(f"scenario must be a dict or a path, not {type(scenario).__name__}")


def to_pointer(key):
    """An override key in any accepted spelling, as a JSON pointer.

    ``"/jobs/0/iodepth"``, ``"jobs/0/iodepth"``, ``"jobs.0.iodepth"`` and
    ``"jobs__0__iodepth"`` (for keyword arguments) all give ``"/jobs/0/iodepth"``.
    """
    if not isinstance(key, str) or not key:
        raise ScenarioError("", f"override path must be a non-empty string, got {key!r}")
    if key.startswith("/"):
        return key
    if "/" in key:
        return "/" + key
    return "/" + "/".join(key.replace("__", ".").split("."))


def normalize_overrides(overrides=None, kwargs=None):
    """Merges an ``overrides`` mapping and keyword overrides into ``[(pointer, value)]``.

    Later entries win: keyword arguments are applied after the mapping.
    """
    pairs = []
    for mapping in (overrides or {}, kwargs or {}):
        if not hasattr(mapping, "items"):
            raise TypeError("overrides must be a mapping of path -> value")
        for key, value in mapping.items():
            pairs.append((to_pointer(key), value))
    return pairs


def _expand_pointer(pointer, doc):
    """Pointers for one pointer that may contain ``*`` (every element of an array)."""
    parts = pointer.split("/")[1:]
    results = [([], doc)]
    for part in parts:
        nxt = []
        for prefix, node in results:
            if part == "*":
                if not isinstance(node, list):
                    where = "/" + "/".join(prefix + ["*"])
                    raise ScenarioError(where, "'*' needs an array here")
                nxt.extend((prefix + [str(i)], item) for i, item in enumerate(node))
            else:
                child = None
                if isinstance(node, dict):
                    child = node.get(part)
                elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                    child = node[int(part)]
                nxt.append((prefix + [part], child))
        results = nxt
    return ["/" + "/".join(prefix) for prefix, _ in results]


def has_wildcard(pointer):
    """Whether a pointer has a ``*`` component."""
    return "*" in pointer.split("/")


def wildcard_map(source, pointers):
    """``{pointer: [concrete pointers]}`` for the pointers that hold ``*``.

    ``"/jobs/*/iodepth"`` becomes one pointer per job of the scenario. The arrays are
    those of the resolved base scenario, loaded once without overrides.
    """
    wild = sorted({p for p in pointers if has_wildcard(p)})
    if not wild:
        return {}
    resolved = json.loads(load(source).resolved)
    return {p: _expand_pointer(p, resolved) for p in wild}


def apply_wildcards(pairs, mapping):
    """``[(pointer, value)]`` with every wildcard pointer replaced via ``mapping``."""
    out = []
    for pointer, value in pairs:
        out.extend((p, value) for p in mapping.get(pointer, [pointer]))
    return out


def expand_wildcards(source, pairs):
    """Replaces every override whose path holds ``*`` by one override per array element
    of the base scenario (``"jobs.*.iodepth"``: the iodepth of every job)."""
    return apply_wildcards(pairs, wildcard_map(source, [p for p, _ in pairs]))


def assignments(pairs):
    """``[(pointer, value)]`` as the engine's ``"pointer=json"`` strings."""
    out = []
    for pointer, value in pairs:
        try:
            text = _json_text(value, pointer)
        except TypeError as exc:
            raise ScenarioError(pointer, f"value is not JSON: {exc}") from None
        out.append(f"{pointer}={text}")
    return out


#: The largest seed: seeds are 64-bit unsigned, as ``nvmesim run --seed``.
MAX_SEED = 2**64 - 1


def whole_number(value):
    """``value`` as an int when it is an integer or an integral float (JSON's ``1e3``);
    None for anything else (a bool, a string, a fraction), which ``int()`` would silently
    turn into 1, an error or a rounded number."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def check_seed(seed, what="seed"):
    """``seed`` as an int, or None for None.

    A seed is an integer from 0 to 2^64-1 (``--seed``'s range); an integral float such as
    ``7.0`` counts as one. Raises TypeError for anything else that is not a number of
    that kind (a bool, a string, ``1.5``: ``int()`` would silently make them 1, an error
    or 1) and ValueError outside the range (the engine's binding would refuse those with
    a message about its argument types), both naming ``what``.
    """
    if seed is None:
        return None
    value = whole_number(seed)
    if value is None:
        raise TypeError(f"{what}: must be an integer from 0 to {MAX_SEED}, got {seed!r}")
    if not 0 <= value <= MAX_SEED:
        raise ValueError(f"{what}: must be an integer from 0 to {MAX_SEED}, got {seed!r}")
    return value


def load(source, pairs=(), seed=None):
    """Loads (and validates) a source with overrides; returns a ``_core.LoadedScenario``."""
    kind, payload, base = source
    strings = assignments(pairs)
    seed = check_seed(seed)
    if kind == "json":
        return _core.load_json(payload, base, strings, seed)
    return _core.load_file(payload, base, strings, seed)
