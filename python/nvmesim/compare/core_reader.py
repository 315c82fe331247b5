"""The metrics of a measurement as the C++ reader gives them (app/calibration/measured_metrics.h,
through ``nvmesim._core``): the same reader ``nvmesim calibrate`` uses, so compare and
calibrate agree on what a file says. Latency CDFs, utilisation and fio's several-job
latency mixture, which only compare needs, are read in Python beside it."""

import json

from .. import _core
from ..errors import ScenarioError
from .errors import CompareError

__all__ = ["core_metrics"]


def core_metrics(doc, where):
    """``(source, metrics)`` of a parsed document: source ``"sim"``, ``"hw"`` or ``"fio"``.
    Raises CompareError naming the JSON path of a missing or non-numeric figure, or of a
    document that is neither kind."""
    try:
        source, metrics = _core.measured_metrics(json.dumps(doc), where)
    except ScenarioError as exc:
        raise CompareError(str(exc)) from None
    return source, dict(metrics)
