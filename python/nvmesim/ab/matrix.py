"""An A/B matrix spec (scenarios/matrices/matrix.schema.json) turned into paired cases.

A case is one point of the matrix: a label per axis and, per arm, the complete scenario
document to run. Both arms of a case are the same scenario but for the policy, and run
with the same seeds (paired). Every problem with a matrix is a :class:`MatrixError` that
names the JSON path inside the matrix file.
"""

import copy
import hashlib
import itertools
import json
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from .._files import read_json
from .._scenario import MAX_SEED, to_pointer, whole_number
from ..errors import JsonPathError, ScenarioError

__all__ = ["ARMS", "Case", "Matrix", "MatrixError", "load_matrix", "read_matrix_doc", "schema_path",
           "warmup_text"]

#: The two arms, in the order they run (hw: A B A B).
ARMS = ("baseline", "candidate")
# The most cases a matrix may expand to, and seeds per arm it may ask for: far above any
# evaluation (policy A's has 512 cases and 5 seeds), and low enough that expanding and
# listing them takes seconds. Both are checked before anything is expanded.
MAX_CASES = 10_000
MAX_SEEDS = 1_000


class MatrixError(JsonPathError):
    """A bad matrix spec: ``path`` is the JSON pointer in the matrix, ``message`` why."""


@dataclass(frozen=True)
class Case:
    """One paired case: ``labels`` (axis name -> label, in axis order, plus ``block``),
    ``scenarios`` (arm -> scenario dict) and the workload facts the report groups by."""

    id: str
    labels: dict
    scenarios: dict
    rw: str
    bs_bytes: int
    drives: int
    origins: dict = field(default_factory=dict, compare=False, repr=False)
    #: The warm-up every arm of the case runs, in us, when the matrix was validated: the
    #: longest any arm's policy asks for (its first decision, as `nvmesim run` lengthens a
    #: warm-up), so that both arms measure the same window. None when not validated.
    warmup_us: object = None


@dataclass(frozen=True)
class Matrix:
    """A loaded matrix: its cases, seeds, run lengths and the directory that profile paths
    are relative to. ``digest`` identifies what the runs depend on (for resuming)."""

    name: str
    path: str
    cases: list
    seeds: list
    axes: list
    base_dir: str
    baseline: dict
    candidate: dict
    duration_us: object
    warmup_us: object
    heatmap_x: str
    digest: str


def schema_path():
    """The matrix JSON Schema shipped with the scenarios."""
    from .._scenario import default_scenarios_dir

    return Path(default_scenarios_dir()) / "matrices" / "matrix.schema.json"


def _pointer(parts):
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts) if parts else ""


def _validate_schema(doc):
    import jsonschema

    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    errors = list(validator.iter_errors(doc))
    if not errors:
        return
    # The deepest error says the most (a oneOf failure's own message says the least).
    error = max(errors, key=lambda e: (len(e.absolute_path), -len(e.context)))
    while error.context:
        error = max(error.context, key=lambda e: len(e.absolute_path))
    raise MatrixError(_pointer(error.absolute_path), error.message)


def _split(pointer):
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]


def _set(doc, pointer, value, where):
    """Sets ``pointer`` (``*`` = every element of an array) in ``doc``; creates missing
    object members, never array elements."""
    parts = _split(pointer)
    if not parts:
        raise MatrixError(where, "cannot replace the whole scenario")
    nodes = [doc]
    for depth, part in enumerate(parts[:-1]):
        nxt = []
        for node in nodes:
            if part == "*":
                if not isinstance(node, list):
                    raise MatrixError(where, f"'*' at {_pointer(parts[:depth + 1])} needs an array")
                nxt.extend(node)
            elif isinstance(node, list):
                if not part.isdigit() or int(part) >= len(node):
                    raise MatrixError(where, f"no element {part} at {_pointer(parts[:depth + 1])}")
                nxt.append(node[int(part)])
            elif isinstance(node, dict):
                nxt.append(node.setdefault(part, {}))
            else:
                raise MatrixError(where, f"{_pointer(parts[:depth])} is not an object or array")
        nodes = nxt
    last = parts[-1]
    for node in nodes:
        if isinstance(node, dict):
            node[last] = copy.deepcopy(value)
        elif isinstance(node, list) and last == "*":
            node[:] = [copy.deepcopy(value) for _ in node]
        elif isinstance(node, list) and last.isdigit() and int(last) < len(node):
            node[int(last)] = copy.deepcopy(value)
        else:
            raise MatrixError(where, f"cannot set {pointer} in this case's scenario")


def _keep_drives(doc, count, where):
    drives = doc.get("drives")
    if not isinstance(drives, list) or len(drives) < count:
        have = len(drives) if isinstance(drives, list) else 0
        raise MatrixError(where, f"the base scenario has {have} drives, fewer than {count}")
    kept = drives[:count]
    names = {d.get("name") for d in kept if isinstance(d, dict) and isinstance(d.get("name"), str)}
    jobs = doc.get("jobs", [])
    if not isinstance(jobs, list):
        raise MatrixError(where, "the base scenario's /jobs is not a list")

    def on_kept_drives(i, job):
        targets = job.get("drives", [])  # absent: every drive, which are the kept ones now
        if not isinstance(targets, list) or any(isinstance(t, bool) or not isinstance(t, (str, int)) for t in targets):
            raise MatrixError(where, f"the base scenario's /jobs/{i}/drives is not a list of drive names or indexes")
        return all(t in names if isinstance(t, str) else 0 <= t < count for t in targets)

    doc["drives"] = kept
    doc["jobs"] = [j for i, j in enumerate(jobs) if isinstance(j, dict) and on_kept_drives(i, j)]
    if not doc["jobs"]:
        raise MatrixError(where, f"no job of the base scenario uses only the first {count} drives")


def _set_items(mapping, where):
    """A ``set`` object as ``[(key, value, matrix path of the value)]``."""
    return [(k, v, f"{where}/{k.replace('~', '~0').replace('/', '~1')}") for k, v in mapping.items()]


def _axis_points(axis, where):
    """``[(label, action)]`` of one axis, where action(doc, arms) applies the value."""
    name = axis["name"]
    if "drive_count" in axis:
        return [(n, ("drives", (n, f"{where}/drive_count/{i}")))
                for i, n in enumerate(axis["drive_count"])]
    points = []
    for i, item in enumerate(axis["values"]):
        at = f"{where}/values/{i}"
        if isinstance(item, dict) and "set" in item:
            if "path" in axis:
                raise MatrixError(at, "a value with 'set' belongs to an axis without 'path'")
            points.append((item["label"], ("set", _set_items(item["set"], f"{at}/set"))))
        elif "path" not in axis:
            raise MatrixError(at, f"axis {name!r} has no 'path': each value needs 'label' and 'set'")
        elif isinstance(item, dict):
            points.append((item["label"], ("set", [(axis["path"], item["value"], f"{at}/value")])))
        else:
            points.append((item, ("set", [(axis["path"], item, at)])))
    labels = [str(label) for label, _ in points]
    if len(set(labels)) != len(labels):
        raise MatrixError(f"{where}/values", f"axis {name!r} has two values with the same label")
    return points


def _apply(action, docs, origins):
    """Applies one axis value to both arms' scenario documents."""
    kind, payload = action
    if kind == "drives":
        count, where = payload
        for doc in docs.values():
            _keep_drives(doc, count, where)
        return
    for key, value, at in payload:
        pointer = to_pointer(key)
        for arm in ARMS:
            if pointer.startswith(f"/{arm}/"):
                rest = pointer[len(arm) + 1:]
                if not rest.startswith("/params/") or rest.count("/") != 2:
                    raise MatrixError(at, f"only /{arm}/params/<name> can be set, not {pointer}")
                docs[arm]["policy"].setdefault("params", {})[rest.split("/")[2]] = value
                origins[(arm, "/policy" + rest)] = at
                break
        else:
            if pointer == "/policy" or pointer.startswith("/policy/"):
                raise MatrixError(at, "the policy is the arm's: set /baseline/params/<p> or "
                                      "/candidate/params/<p>")
            for doc in docs.values():
                _set(doc, pointer, value, at)
            origins[(None, pointer)] = at


def _bs_bytes(bs):
    if isinstance(bs, int):
        return bs
    text = str(bs).strip().lower()
    scale = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}
    for suffix in ("kib", "mib", "gib", "kb", "mb", "gb", "k", "m", "g", "b"):
        if text.endswith(suffix):
            number = text[: -len(suffix)]
            return int(float(number) * scale.get(suffix[0], 1))
    return int(text)


def _load_base(doc, matrix_dir):
    base = doc["base"]
    if isinstance(base, dict):
        return copy.deepcopy(base), str(matrix_dir)
    path = (matrix_dir / base).resolve()
    if path.suffix.lower() != ".json":
        raise MatrixError("/base", "the base must be a scenario JSON file or object")
    return read_json(path, lambda why: MatrixError("/base", f"{path}: {why}")), str(path.parent)


def _origin_of(error_path, arm, origins):
    """The matrix path that set the scenario value a loader error names, if any."""
    best = None
    for (who, pointer), at in origins.items():
        if who not in (None, arm):
            continue
        if error_path == pointer or error_path.startswith(pointer + "/") or \
                pointer.startswith(error_path + "/"):
            best = at
        elif "*" in pointer:
            parts, got = pointer.split("/"), error_path.split("/")
            if len(got) >= len(parts) and all(p in ("*", g) for p, g in zip(parts, got)):
                best = at
    return best


def _check_case_count(doc, blocks):
    """Refuses, before any case is built, a matrix whose axes multiply to more than
    MAX_CASES cases; the error names the axes of the block that passes the cap."""
    total = 0
    for b, block in enumerate(blocks):
        where = "/axes" if block is None else f"/blocks/{b}/axes"
        axes = doc["axes"] + ([] if block is None else block["axes"])
        counts = [len(a["drive_count"] if "drive_count" in a else a["values"]) for a in axes]
        total += math.prod(counts)
        if total > MAX_CASES:
            raise MatrixError(where, f"the axes expand to more than {MAX_CASES} cases (the "
                                     f"cap of a matrix): {' x '.join(map(str, counts))} values")


def read_matrix_doc(matrix):
    """The matrix document, its path (``"<dict>"`` for a dict) and the directory its
    relative paths are relative to. Raises MatrixError for a file that is not a JSON object."""
    if isinstance(matrix, dict):
        return copy.deepcopy(matrix), "<dict>", Path.cwd()
    path = os.fspath(matrix)
    doc = read_json(path, lambda why: MatrixError("", f"the file is {why}"
                                                  if why.startswith("not") else why))
    if not isinstance(doc, dict):
        raise MatrixError("", "a matrix is a JSON object")
    return doc, path, Path(path).resolve().parent


def with_warmup(case, warmup_us, resolved):
    """``case`` with every arm running ``warmup_us`` of warm-up.

    The loader lengthens the warm-up of a policy whose first decision comes after it
    (``cover_first_decision``: policy C's first 50 ms cycle), and only that arm's: the
    candidate would be measured after 54 ms and its baseline after 4 ms, on a drive whose
    drawn initial state (write buffer, GC backlog) the baseline is still working off. So
    every arm of a case runs the longest warm-up any of them asks for, written into each
    scenario (a warm-up of at least the first decision is not lengthened again). When
    every arm already runs it (``resolved``: arm -> resolved scenario), the scenarios stay
    as they are, and so does the matrix's digest."""
    if all(int(r["warmup_us"]) == warmup_us for r in resolved.values()):
        return replace(case, warmup_us=warmup_us)
    scenarios = {arm: {**scenario, "warmup_us": warmup_us} for arm, scenario in case.scenarios.items()}
    return replace(case, scenarios=scenarios, warmup_us=warmup_us)


def warmup_text(matrix):
    """The warm-up a report states: the matrix's, and where a policy asked for more (every
    arm of those cases then ran it, ``with_warmup``), how many cases ran how long."""
    given = matrix.warmup_us
    longer = {}
    for case in matrix.cases:
        if case.warmup_us is not None and (given is None or case.warmup_us != int(given)):
            longer[case.warmup_us] = longer.get(case.warmup_us, 0) + 1
    text = (f"{given} us" if given is not None else "the base scenario's") + " warm-up"
    if longer:
        runs = ", ".join(f"{w} us in {n} of {len(matrix.cases)} cases" for w, n in sorted(longer.items()))
        text += (f" ({runs}: the longest warm-up an arm's policy asks for before its first "
                 "decision, run by both arms)")
    return text


def matrix_digest(cases, seeds, base_dir):
    """What a matrix's runs depend on, for resuming: its cases' scenarios, seeds, base."""
    identity = {
        "cases": [[c.id, c.labels, c.scenarios] for c in cases],
        "seeds": list(seeds),
        "base_dir": base_dir,
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()


def _whole_number(value, where, rule):
    """``value`` as an int (``whole_number``); MatrixError(where, rule) for a bool, a
    string or a fraction."""
    number = whole_number(value)
    if number is None:
        raise MatrixError(where, f"{rule}, got {value!r}")
    return number


def load_matrix(matrix, duration_us=None, warmup_us=None, seeds=None, validate=True,
                candidate=None):
    """Reads and checks a matrix spec; returns a :class:`Matrix` with every case built.

    Args:
        matrix: path of a matrix JSON file, or a matrix dict (its relative paths are then
            relative to the current directory).
        duration_us, warmup_us: simulated window and warm-up of every run; win over the
            matrix's own.
        seeds: a count or list of seeds; wins over the matrix's.
        validate: load every case's two scenarios with the simulator's loader, so that a
            bad value is reported here, with its path, before anything runs.
        candidate: the candidate arm (``{"name", "params"}``), in place of the matrix's
            ``candidate`` or of one of its ``candidates`` (a league runs one A/B each).

    Raises:
        MatrixError: with the JSON path inside the matrix.
    """
    from .. import _scenario

    doc, path, matrix_dir = read_matrix_doc(matrix)
    _validate_schema(doc)
    if candidate is not None:
        doc.pop("candidates", None)
        doc["candidate"] = {k: v for k, v in candidate.items() if k != "label"}
    elif "candidates" in doc:
        if len(doc["candidates"]) > 1:
            raise MatrixError("/candidates", f"{len(doc['candidates'])} candidates make a league: "
                                             "run it with nvmesim.league (or nvmesim ab, which "
                                             "runs one for such a matrix)")
        doc["candidate"] = {k: v for k, v in doc.pop("candidates")[0].items() if k != "label"}

    base, base_dir = _load_base(doc, matrix_dir)
    if not isinstance(base.get("policy", {}), dict):
        raise MatrixError("/base/policy", "must be an object")
    window = {}
    for name, given in (("duration_us", duration_us), ("warmup_us", warmup_us)):
        value = given if given is not None else doc.get(name)
        if value is not None:
            # int() would make 1.5 one microsecond and True one; the range is the
            # scenario loader's (each case reports it with its path).
            where = "--" + name.replace("_", "-") if given is not None else "/" + name
            value = base[name] = _whole_number(value, where, "must be a whole number of microseconds")
        window[name] = value
    duration, warmup = window["duration_us"], window["warmup_us"]
    seed_spec = seeds if seeds is not None else doc.get("seeds", 5)
    seed_where = "--seeds" if seeds is not None else "/seeds"
    if isinstance(seed_spec, (list, tuple)):
        seed_list = [_whole_number(s, f"{seed_where}/{i}", f"a seed must be an integer from 0 to {MAX_SEED}")
                     for i, s in enumerate(seed_spec)]
        count = len(seed_list)
    else:
        count = _whole_number(seed_spec, seed_where, "must be a count of seeds or a list of seeds")
        seed_list = None  # 1..count, once count is known to be small
    if count > MAX_SEEDS:
        raise MatrixError(seed_where, f"{count} seeds per arm, more than the {MAX_SEEDS} a "
                                      "matrix may have")
    if seed_list is None:
        seed_list = list(range(1, count + 1))
    if not seed_list:
        raise MatrixError(seed_where, "no seeds")
    if any(not 0 <= s <= MAX_SEED for s in seed_list):
        raise MatrixError(seed_where, f"a seed must be from 0 to {MAX_SEED}")

    common = [(f"/axes/{i}", a) for i, a in enumerate(doc["axes"])]
    blocks = doc.get("blocks") or [None]
    names = [a["name"] for _, a in common]
    if len(set(names)) != len(names):
        raise MatrixError("/axes", "two axes with the same name")

    _check_case_count(doc, blocks)
    cases = []
    axis_order = list(names)
    for b, block in enumerate(blocks):
        own = [] if block is None else [(f"/blocks/{b}/axes/{i}", a)
                                         for i, a in enumerate(block["axes"])]
        clash = {a["name"] for _, a in own} & set(names) | {"block", "case", "arm", "seed"} & \
            {a["name"] for _, a in common + own}
        if clash:
            where = f"/blocks/{b}/axes" if block is not None else "/axes"
            raise MatrixError(where, f"axis name {sorted(clash)[0]!r} is taken")
        axis_order += [a["name"] for _, a in own if a["name"] not in axis_order]
        axes = common + own
        per_axis = [_axis_points(a, where) for where, a in axes]
        for combo in itertools.product(*per_axis):
            docs = {}
            for arm in ARMS:
                scenario = copy.deepcopy(base)
                scenario["policy"] = {"name": doc[arm]["name"],
                                      "params": dict(doc[arm].get("params", {}))}
                docs[arm] = scenario
            origins = {}
            for arm in ARMS:
                origins[(arm, "/policy/name")] = f"/{arm}/name"
                for p in doc[arm].get("params", {}):
                    origins[(arm, f"/policy/params/{p}")] = f"/{arm}/params/{p}"
            if doc.get("set"):
                _apply(("set", _set_items(doc["set"], "/set")), docs, origins)
            labels = {}
            if block is not None:
                labels["block"] = block["name"]
            for (where, axis), (label, action) in zip(axes, combo):
                labels[axis["name"]] = label
                _apply(action, docs, origins)
            first_job = docs["baseline"]["jobs"][0] if docs["baseline"].get("jobs") else {}
            try:
                bs = _bs_bytes(first_job.get("bs", 4096))
            except ValueError:
                bs = 0
            cases.append(Case(
                id=f"c{len(cases):04d}", labels=labels, scenarios=docs,
                rw=str(first_job.get("rw", "randread")), bs_bytes=bs,
                drives=len(docs["baseline"].get("drives", [])), origins=origins))

    if validate:
        seen = {}
        for case in cases:
            for arm in ARMS:
                text = json.dumps(case.scenarios[arm], sort_keys=True)
                if text in seen:
                    continue
                try:
                    loaded = _scenario.load(("json", text, base_dir), (), seed_list[0])
                except ScenarioError as exc:
                    origin = _origin_of(exc.path, arm, case.origins)
                    where = origin or ("/base" if exc.path else "")
                    what = ", ".join(f"{k}={v}" for k, v in case.labels.items())
                    raise MatrixError(where, f"case {case.id} ({what}), {arm}: {exc}") from None
                seen[text] = loaded
        # The resolved first job says what the workload is (bs as bytes); the arms'
        # resolved warm-ups, the one every arm runs.
        for i, case in enumerate(cases):
            resolved = {arm: json.loads(seen[json.dumps(case.scenarios[arm], sort_keys=True)]
                                        .resolved) for arm in ARMS}
            job = resolved["baseline"]["jobs"][0]
            longest = max(int(r["warmup_us"]) for r in resolved.values())
            cases[i] = with_warmup(Case(id=case.id, labels=case.labels, scenarios=case.scenarios,
                                        rw=job["rw"], bs_bytes=int(_bs_bytes(job["bs"])),
                                        drives=len(resolved["baseline"]["drives"]),
                                        origins=case.origins), longest, resolved)

    report = doc.get("report", {})
    x = report.get("x") or ("iodepth" if "iodepth" in axis_order else axis_order[-1] if
                            axis_order else "block")
    if axis_order and x not in axis_order:
        raise MatrixError("/report/x", f"no axis named {x!r}")
    digest = matrix_digest(cases, seed_list, base_dir)
    return Matrix(name=doc.get("name", Path(path).stem), path=path, cases=cases, seeds=seed_list,
                  axes=axis_order, base_dir=base_dir, baseline=doc["baseline"],
                  candidate=doc["candidate"], duration_us=duration, warmup_us=warmup,
                  heatmap_x=x, digest=digest)
