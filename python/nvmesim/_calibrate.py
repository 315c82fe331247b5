"""nvmesim.calibrate: fit profile parameters to measured runs (docs/calibrating.md). The same C++ spec loader and fitter as ``nvmesim calibrate``."""

import json
from pathlib import Path

from . import _core
from ._files import write_text

__all__ = ["calibrate"]


def calibrate(spec, output=None, report=None, fitted_on=None, base_dir=None):
    """Fits a calibration spec and returns its report as a dict.

    Args:
        spec: a spec file name or a dict (``nvmesim-calibrate/1``,
            scenarios/calibration.schema.json).
        output: optional file for the fitted profile (several profiles fitted: an object
            of them by slot), as ``nvmesim calibrate -o``.
        report: optional directory for ``report.json`` and ``report.md``, as ``--report``.
        fitted_on: the date written into the fitted values' sources (default: the spec's
            ``fitted_on``, else today in UTC).
        base_dir: for a dict spec, the directory of its relative file names (default:
            the current directory).

    Returns:
        dict: the report, with ``fitted_profiles`` (by slot) added.

    Raises:
        ScenarioError: the spec is invalid (``.path`` names the JSON pointer).

    The interpreter lock is released while the simulations run.
    """
    if isinstance(spec, (str, Path)):
        text = Path(spec).read_text()
        base = str(Path(spec).resolve().parent)
    else:
        text = json.dumps(spec)
        base = str(Path(base_dir or ".").resolve())
    report_text, profiles_text, markdown = _core.calibrate(text, base, fitted_on or "")
    result = json.loads(report_text)
    profiles = json.loads(profiles_text)
    result["fitted_profiles"] = profiles
    if output is not None:
        fitted = next(iter(profiles.values())) if len(profiles) == 1 else profiles
        write_text(output, json.dumps(fitted, indent=2) + "\n")
    if report is not None:
        d = Path(report)
        d.mkdir(parents=True, exist_ok=True)
        write_text(d / "report.json", json.dumps(result, indent=2) + "\n")
        write_text(d / "report.md", markdown)
    return result
