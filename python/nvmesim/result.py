"""The results of one run, with accessors that turn the JSON into numbers and DataFrames.

The full document is ``Result.data``; its layout is the results contract of the
command-line tool (docs/results.md), and ``Result.to_json()`` is byte for byte the file
``nvmesim run -o`` writes for the same scenario and seed.
"""

import json
import math

from ._files import write_text

__all__ = ["Result", "LATENCY_KEYS", "CPU_STATES"]

#: Latency statistics of every level of the results, in nanoseconds.
LATENCY_KEYS = ("mean", "p50", "p90", "p99", "p99.9", "p99.99", "max")
#: Where a core's time goes, in the order of the results' "fractions".
CPU_STATES = ("hardirq", "softirq", "irq_thread", "app", "idle")


def _latency_key(p):
    """``99`` / ``99.9`` / ``0.99`` / ``"p99"`` / ``"mean"`` -> the results' key."""
    if isinstance(p, str):
        key = p if p in LATENCY_KEYS or not p.replace(".", "").isdigit() else f"p{p}"
    else:
        value = float(p)
        if 0 < value < 1:
            value *= 100
        key = f"p{round(value, 6):g}"
    if key not in LATENCY_KEYS:
        raise KeyError(f"no latency statistic {p!r}; have {', '.join(LATENCY_KEYS)}")
    return key


def _nan(x):
    return math.nan if x is None else x


def _flatten(entry, skip=()):
    """One results entry (aggregate/drive/queue/job) as a flat dict of scalars."""
    row = {}
    for key, value in entry.items():
        if key in skip:
            continue
        if key == "latency_ns":
            for k, v in value.items():
                row[f"latency_{k}_ns"] = v
        elif isinstance(value, dict):
            for k, v in value.items():
                if not isinstance(v, (dict, list)):
                    row[f"{key}_{k}"] = v
        elif isinstance(value, list):
            row[key] = tuple(value) if all(not isinstance(v, (dict, list)) for v in value) else None
        else:
            row[key] = _nan(value) if key == "completions_per_irq" else value
    return {k: v for k, v in row.items() if v is not None or k == "completions_per_irq"}


def _mode_switches(queue):
    """A queue's mode changes in the measured window (its ``counters.mode_changes``;
    the ``mode_timeline`` also covers the warm-up)."""
    counters = queue.get("counters", {})
    if "mode_changes" in counters:
        return counters["mode_changes"]
    return len(queue.get("mode_timeline", [])) + queue.get("timeline_dropped", 0)


class Result:
    """The results of one simulation run.

    Attributes:
        data: the full results document as a dict.
        info: run facts that are not part of the results (``wall_seconds``, ``events``,
            ``ios``), or an empty dict.
    """

    def __init__(self, text, info=None):
        self._text = text
        self.data = json.loads(text)
        self.info = dict(info or {})

    # -- the document ------------------------------------------------------------------
    def to_json(self, path=None):
        """The results as canonical JSON text (identical to the CLI's ``-o`` file).

        With ``path``, also writes the text there.
        """
        if path is not None:
            write_text(path, self._text)
        return self._text

    @property
    def scenario(self):
        """The resolved scenario that was run (profiles inlined, defaults filled)."""
        return self.data["scenario"]

    @property
    def seed(self):
        """The seed of the run."""
        return self.data["seed"]

    @property
    def aggregate(self):
        """The whole-system figures (dict)."""
        return self.data["aggregate"]

    # -- headline numbers ----------------------------------------------------------------
    @property
    def iops(self):
        """Completed I/Os per second over the measured window, all jobs."""
        return self.aggregate["iops"]

    @property
    def bytes_per_s(self):
        """Bytes transferred per second, all jobs."""
        return self.aggregate["bytes_per_s"]

    @property
    def irqs_per_io(self):
        """Interrupts (useful, spurious and lazily masked) per completed I/O."""
        return self.aggregate["irqs_per_io"]

    @property
    def completions_per_irq(self):
        """Completed I/Os per interrupt (NaN when there was no interrupt)."""
        return _nan(self.aggregate.get("completions_per_irq"))

    @property
    def interrupts(self):
        """Interrupt counts: ``useful``, ``spurious``, ``masked_lazily``, ``total``."""
        return dict(self.aggregate["interrupts"])

    def latency(self, p="p99", job=None, drive=None):
        """A latency statistic in nanoseconds.

        Args:
            p: ``50``, ``99``, ``99.9``, ``99.99`` (or ``0.99``, ``"p99"``), ``"mean"``
                or ``"max"``.
            job: index into the results' ``jobs`` (one entry per job clone) for that
                job's latency instead of the whole system's.
            drive: index into ``drives`` for that drive's latency.
        """
        key = _latency_key(p)
        if job is not None and drive is not None:
            raise ValueError("give job or drive, not both")
        if job is not None:
            entry = self.data["jobs"][job]
        elif drive is not None:
            entry = self.data["drives"][drive]
        else:
            entry = self.aggregate
        return entry["latency_ns"][key]

    # -- tables ----------------------------------------------------------------------------
    def _frame(self, rows):
        import pandas as pd

        return pd.DataFrame(rows)

    @property
    def cores(self):
        """Per-core CPU time: one row per core, the fractions of the measured window
        spent in hard-IRQ, softirq, IRQ-thread, application and idle, plus ``*_ns``."""
        rows = []
        for entry in self.data["cores"]:
            row = {"core": entry["core"]}
            row.update({s: entry["fractions"].get(s, math.nan) for s in CPU_STATES})
            for s, v in entry.get("time_ns", {}).items():
                row[f"{s}_ns"] = v
            rows.append(row)
        return self._frame(rows)

    @property
    def queues(self):
        """One row per used queue: its figures, flattened (``latency_p99_ns``,
        ``interrupts_total``, ``counters_poll_empty``, ...), and ``mode_switches`` (mode
        changes in the measured window)."""
        rows = []
        for entry in self.data["queues"]:
            row = _flatten(entry, skip=("mode_timeline",))
            row["mode_switches"] = _mode_switches(entry)
            rows.append(row)
        return self._frame(rows)

    @property
    def drives(self):
        """One row per drive, flattened like ``queues``."""
        return self._frame([_flatten(e) for e in self.data["drives"]])

    @property
    def jobs(self):
        """One row per job clone, flattened like ``queues``."""
        return self._frame([_flatten(e) for e in self.data["jobs"]])

    @property
    def timeline(self):
        """Every queue's mode changes, warm-up included: columns ``queue``, ``drive``, ``qid``, ``t_ns``,
        ``from``, ``to``, ``reason``, sorted by time then queue."""
        rows = []
        for entry in self.data["queues"]:
            for change in entry.get("mode_timeline", []):
                row = {k: entry.get(k) for k in ("queue", "drive", "qid")}
                row.update(change)
                rows.append(row)
        columns = ["queue", "drive", "qid", "t_ns", "from", "to", "reason"]
        frame = self._frame(rows)
        if frame.empty:
            import pandas as pd

            return pd.DataFrame(columns=columns)
        frame = frame[columns + [c for c in frame.columns if c not in columns]]
        return frame.sort_values(["t_ns", "queue"], kind="stable").reset_index(drop=True)

    @property
    def latency_cdf(self):
        """The whole-system latency distribution: columns ``latency_ns`` and
        ``fraction`` (of I/Os at or below it). Built from the percentiles when the
        results carry no ``latency_cdf``."""
        import pandas as pd

        points = self.aggregate.get("latency_cdf")
        if not points:
            lat = self.aggregate["latency_ns"]
            fractions = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p99.9": 0.999,
                         "p99.99": 0.9999, "max": 1.0}
            points = [(lat[k], f) for k, f in fractions.items() if k in lat]
        return pd.DataFrame(points, columns=["latency_ns", "fraction"])

    # -- one-line summary (a sweep row) ------------------------------------------------------
    def metrics(self):
        """The key figures as a flat dict: the columns a sweep row carries."""
        agg = self.aggregate
        lat = agg["latency_ns"]
        cores = self.data.get("cores", [])
        row = {
            "iops": agg["iops"],
            "bytes_per_s": agg["bytes_per_s"],
            "mean_ns": lat.get("mean"),
            "p50_ns": lat.get("p50"),
            "p90_ns": lat.get("p90"),
            "p99_ns": lat.get("p99"),
            "p999_ns": lat.get("p99.9"),
            "p9999_ns": lat.get("p99.99"),
            "max_ns": lat.get("max"),
            "irqs_per_io": agg["irqs_per_io"],
            "completions_per_irq": _nan(agg.get("completions_per_irq")),
            "interrupts": agg["interrupts"]["total"],
            "spurious_irqs": agg["interrupts"].get("spurious", 0),
        }
        for state in CPU_STATES:
            values = [c["fractions"].get(state, 0.0) for c in cores]
            row[f"cpu_{state}"] = sum(values) / len(values) if values else math.nan
        busy = [1.0 - c["fractions"].get("idle", 0.0) for c in cores]
        row["cpu_busy_max"] = max(busy) if busy else math.nan
        row["mode_switches"] = sum(_mode_switches(q) for q in self.data.get("queues", []))
        row["bound_by"] = self.data.get("limits", {}).get("bound_by")
        return row

    def __repr__(self):
        return (f"<nvmesim.Result {self.scenario.get('name', '')!r} seed={self.seed} "
                f"iops={self.iops:,.0f} p99={self.latency('p99') / 1000:.1f}us "
                f"irqs/io={self.irqs_per_io:.3f}>")
