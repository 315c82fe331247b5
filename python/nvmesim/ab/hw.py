"""Both arms of every case on a real drive, through ``nvmesim-hw run``.

Per case and seed the arms alternate, baseline then candidate (A B A B ...), so a drift
of the drive (temperature, garbage collection) falls on both arms alike; the ``order``
column of the run table numbers the runs in the order they ran, across resumes.
nvmesim-hw writes the simulator's results layout (docs/results.md, "hw runs"), so the
same figures and verdicts apply. nvmesim-hw runs a scenario's first job on one drive:
cases with more drives than that are recorded as failed runs with the reason, not run.
"""

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

from .. import _scenario
from .._sweep import _progress_bar
from ..result import Result
from .matrix import ARMS

__all__ = ["HwError", "hw_cli_path", "run_hw"]

#: nvmesim-hw's exit codes that mean the device cannot go on (docs/hw.md).
_STOP_CODES = {3: "refused (safety)", 4: "controller fatal status", 5: "command timeout"}
_INTERRUPTED = 130


class HwError(RuntimeError):
    """The drive cannot run further cases (refused, fatal, timeout, or no nvmesim-hw)."""


def hw_cli_path(given=None):
    """The nvmesim-hw executable: ``given``, else $NVMESIM_HW_CLI, else on PATH."""
    name = given or os.environ.get("NVMESIM_HW_CLI") or "nvmesim-hw"
    found = shutil.which(name)
    if not found:
        raise HwError(f"nvmesim-hw not found ({name}): pass --hw-cli or set NVMESIM_HW_CLI")
    return found


def _tail(text, lines=3):
    return " | ".join(text.strip().splitlines()[-lines:])


def _run_one(cli, device, scenario_path, seed, out_path):
    """One arm on the drive: ``(metrics, error)``; raises HwError / KeyboardInterrupt."""
    command = [cli, "run", "--device", device, str(scenario_path), "--seed", str(seed),
               "-o", str(out_path)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode == _INTERRUPTED or done.returncode == -signal.SIGINT:
        raise KeyboardInterrupt
    if done.returncode in _STOP_CODES:
        raise HwError(f"nvmesim-hw exit {done.returncode} ({_STOP_CODES[done.returncode]}): "
                      f"{_tail(done.stderr)}")
    if done.returncode != 0:
        return None, f"nvmesim-hw exit {done.returncode}: {_tail(done.stderr)}"
    try:
        result = Result(Path(out_path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return None, f"unreadable results {out_path}: {exc}"
    if result.data.get("source") != "hw":
        return None, f"{out_path} is not a hw results file (no \"source\": \"hw\")"
    if result.data.get("hw", {}).get("interrupted"):
        return None, "the hw run was interrupted"
    return result.metrics(), None


def run_hw(matrix, store, device, cli=None, progress=True):
    """Runs what ``store`` does not have yet on ``device`` (a PCI address), A B A B per
    case. Returns True if Ctrl-C stopped it early; raises HwError when the drive cannot
    go on (what ran so far stays on disk)."""
    cli = hw_cli_path(cli)
    scenarios_dir = store.dir / "hw" / "scenarios"
    results_dir = store.dir / "hw" / "results"
    scenarios_dir.mkdir(parents=True, exist_ok=True)
    results_dir.mkdir(parents=True, exist_ok=True)
    done = store.done
    orders = [row["order"] for row in store.rows.values() if row.get("order") is not None]
    order = max(orders, default=-1) + 1
    total = len(matrix.cases) * len(matrix.seeds) * len(ARMS)
    bar = _progress_bar(total, progress, desc="nvmesim ab (hw)", initial=len(done))
    try:
        for case in matrix.cases:
            for seed in matrix.seeds:
                for arm in ARMS:
                    if (case.id, arm, seed) in done:
                        continue
                    if case.drives != 1:
                        store.add(case.id, arm, seed, None,
                                  f"not run: nvmesim-hw runs one drive, the case has {case.drives}")
                    else:
                        scenario = scenarios_dir / f"{case.id}-{arm}.json"
                        if not scenario.exists():
                            # Resolved (profiles inlined): no relative path to go wrong.
                            text = json.dumps(case.scenarios[arm], sort_keys=True)
                            loaded = _scenario.load(("json", text, matrix.base_dir))
                            scenario.write_text(loaded.resolved, encoding="utf-8")
                        out = results_dir / f"{case.id}-{arm}-s{seed}.json"
                        metrics, error = _run_one(cli, device, scenario, seed, out)
                        store.add(case.id, arm, seed, metrics, error, order=order)
                        order += 1
                    if bar is not None:
                        bar.update(1)
    except KeyboardInterrupt:
        return True
    finally:
        if bar is not None:
            bar.close()
        store.close()
    return False
