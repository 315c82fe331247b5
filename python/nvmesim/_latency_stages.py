"""Where a command's latency went, from a command trace (docs/trace-format.md).

A completion policy changes one stage of a command's life more than the others: polling
moves the wait between the CQE's posting and its consumption from the interrupt's delivery
to the polling thread's sleep, and it changes how many commands wait in the drive. A p99
compared whole says that it moved, not which stage moved it; the stages say which.
"""

import numpy as np
import pandas as pd

__all__ = ["STAGES", "latency_stages"]

#: The stages, in the order of a command's life, and the trace columns that bound them.
#: ``total`` is the SQE written to the CQE consumed by the driver (the results' ``latency_ns``
#: runs from the application's submit call to its reap: longer where it reaps in batches).
STAGES = {
    "submit_to_doorbell": ("submit_ns", "doorbell_ns"),
    "device": ("doorbell_ns", "cqe_posted_ns"),
    "host": ("cqe_posted_ns", "cqe_seen_ns"),
    "device_and_host": ("doorbell_ns", "cqe_seen_ns"),
    "total": ("submit_ns", "cqe_seen_ns"),
}

_QUANTILES = {"p50_us": 50, "p90_us": 90, "p99_us": 99, "p99.9_us": 99.9}


def _commands(trace, since_ns, op):
    if isinstance(trace, pd.DataFrame):
        rows = trace
    else:
        rows = pd.read_csv(trace, low_memory=False)
    missing = {"kind", "op", *(c for pair in STAGES.values() for c in pair)} - set(rows.columns)
    if missing:
        raise ValueError(f"{trace if not isinstance(trace, pd.DataFrame) else 'trace'}: not a command trace "
                         f"(docs/trace-format.md): no column {', '.join(sorted(missing))}")
    cmds = rows[rows["kind"] == "cmd"]
    if since_ns is not None:
        cmds = cmds[cmds["submit_ns"] >= since_ns]
    if op is not None:
        ops = sorted(cmds["op"].dropna().unique())
        if op not in ops and len(cmds):
            raise ValueError(f"op {op!r}: the trace's commands are {', '.join(ops)}")
        cmds = cmds[cmds["op"] == op]
    return cmds


def latency_stages(trace, since_ns=None, op=None):
    """Each stage of the commands' latency: its count, mean and percentiles in us, and its
    mean over the commands whose whole latency is at or above its p99 (``tail_mean_us``:
    which stage the tail's time is spent in).

    Args:
        trace: a command trace CSV (``nvmesim run --command-trace``, ``nvmesim-hw run
            --trace``) or the DataFrame of one (``pd.read_csv``).
        since_ns: only commands submitted at or after this trace time (e.g. the measured
            window's start, to leave the warm-up out).
        op: only commands of this operation (``read``, ``write``, ``flush``).

    Returns:
        A DataFrame indexed by stage (the keys of :data:`STAGES`, in a command's order):
        ``submit_to_doorbell``; ``device``, doorbell to the CQE written to host memory;
        ``host``, that write to the reaper consuming it (the interrupt's delivery and
        handler, or a polling thread's sleep); ``device_and_host``, their sum; ``total``,
        submission to consumption. A hardware trace has no ``cqe_posted_ns`` (the host
        cannot see it): its ``device`` and ``host`` rows are absent.

    Raises:
        ValueError: the file is not a command trace, or ``op`` is not in it.
    """
    cmds = _commands(trace, since_ns, op)
    if cmds.empty:
        raise ValueError("no command in the trace" + ("" if since_ns is None else f" submitted since {since_ns} ns")
                         + ("" if op is None else f" of op {op!r}"))
    total = (cmds["cqe_seen_ns"] - cmds["submit_ns"]).to_numpy(dtype=float)
    tail = total >= np.percentile(total, 99)
    rows = {}
    for stage, (start, end) in STAGES.items():
        span = (cmds[end] - cmds[start]).to_numpy(dtype=float) / 1000.0
        known = ~np.isnan(span)
        if not known.any():  # hw: no cqe_posted_ns
            continue
        values = span[known]
        row = {"count": int(known.sum()), "mean_us": float(values.mean())}
        row.update({name: float(np.percentile(values, q)) for name, q in _QUANTILES.items()})
        in_tail = tail & known
        row["tail_mean_us"] = float(span[in_tail].mean()) if in_tail.any() else float("nan")
        rows[stage] = row
    return pd.DataFrame.from_dict(rows, orient="index", columns=["count", "mean_us", *_QUANTILES,
                                                                 "tail_mean_us"])
