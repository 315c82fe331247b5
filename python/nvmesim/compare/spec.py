"""The compare spec: which measured file goes with which simulated file, and optional
bounds. A JSON file (schema: SPEC_SCHEMA, docs/compare.md)::

    {"format": "nvmesim-compare/1",
     "pairs": [{"name": "qd32", "measured": "fio/qd32.json", "simulated": "sim/qd32.json"}],
     "fail_above": {"iops.mape": 5}, "fail_below": {"iops.pearson_r": 0.97}}

Relative file names are relative to the spec's directory.
"""

import math
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema

from .._files import read_json
from .errors import CompareError

__all__ = ["Pair", "Spec", "SPEC_FORMAT", "SPEC_SCHEMA", "load_spec", "spec_of_pair"]

SPEC_FORMAT = "nvmesim-compare/1"

_BOUNDS = {"type": "object", "additionalProperties": {"type": "number"}}
SPEC_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["format", "pairs"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": SPEC_FORMAT},
        "name": {"type": "string"},
        "comment": {"type": "string"},
        "pairs": {
            "type": "array", "minItems": 1,
            "items": {
                "type": "object", "required": ["measured", "simulated"],
                "additionalProperties": False,
                "properties": {"name": {"type": "string"},
                               # "" would be the spec's directory: "cannot read (Is a directory)"
                               "measured": {"type": "string", "minLength": 1},
                               "simulated": {"type": "string", "minLength": 1}},
            },
        },
        "fail_above": _BOUNDS,
        "fail_below": _BOUNDS,
    },
}


@dataclass(frozen=True)
class Pair:
    name: str
    measured: Path
    simulated: Path


@dataclass
class Spec:
    name: str
    pairs: list
    fail_above: dict = field(default_factory=dict)
    fail_below: dict = field(default_factory=dict)


def _finite(x):
    try:
        return math.isfinite(x)
    except OverflowError:  # an integer of 400 digits
        return False


def _token(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def _pointer(path):
    return "/" + "/".join(_token(p) for p in path)


def load_spec(path):
    p = Path(path)
    doc = read_json(p, lambda why: CompareError(f"{path}: {why}"))
    errors = sorted(jsonschema.Draft202012Validator(SPEC_SCHEMA).iter_errors(doc),
                    key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        raise CompareError(f"{path}: {_pointer(e.absolute_path)}: {e.message}")
    # JSON has no infinity, but 1e400 reads as one: a bound no statistic can cross, a gate
    # that never fails.
    for key in ("fail_above", "fail_below"):
        for name, limit in doc.get(key, {}).items():
            if not _finite(limit):
                raise CompareError(f"{path}: /{key}/{_token(name)}: must be a finite number, "
                                   f"got {str(limit)[:40]}")
    base = p.parent
    pairs, seen = [], set()
    for i, entry in enumerate(doc["pairs"]):
        name = entry.get("name") or Path(entry["measured"]).stem
        if name in seen:
            raise CompareError(f"{path}: /pairs/{i}/name: {name!r} twice; names must differ")
        seen.add(name)
        pairs.append(Pair(name, base / entry["measured"], base / entry["simulated"]))
    return Spec(doc.get("name") or p.stem, pairs, dict(doc.get("fail_above", {})),
                dict(doc.get("fail_below", {})))


def spec_of_pair(measured, simulated):
    """The spec of ``nvmesim compare MEASURED SIMULATED``."""
    m = Path(measured)
    return Spec(m.stem, [Pair(m.stem, m, Path(simulated))])
