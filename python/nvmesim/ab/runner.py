"""Both arms of every case and seed in the simulator, through the sweep executor.

The runs go to nvmesim.sweep's executor (serial, local processes, or a Dask cluster),
and each outcome is written to the run table the moment it arrives, so a killed run
resumes from what is on disk.
"""

import json

from .._sweep import _progress_bar, execute
from .matrix import ARMS

__all__ = ["pending_runs", "run_simulated"]


def pending_runs(matrix, done):
    """``[(case, arm, seed)]`` not yet on disk, case by case, arms paired per seed."""
    return [(case, arm, seed) for case in matrix.cases for seed in matrix.seeds
            for arm in ARMS if (case.id, arm, seed) not in done]


class _Journal:
    """The ``outcomes`` mapping of the sweep executor, writing through to the run table."""

    def __init__(self, store, keys):
        self._store = store
        self._keys = keys
        self._seen = set()

    def __setitem__(self, index, outcome):
        _seed, metrics, error = outcome
        case_id, arm, seed = self._keys[index]
        self._store.add(case_id, arm, seed, metrics, error)
        self._seen.add(index)

    def __contains__(self, index):
        return index in self._seen


def run_simulated(matrix, store, workers=None, client=None, progress=True):
    """Runs what ``store`` does not have yet. Returns True if Ctrl-C stopped it early."""
    todo = pending_runs(matrix, store.done)
    total = len(matrix.cases) * len(matrix.seeds) * len(ARMS)
    if not todo:
        return False
    tasks, keys = [], {}
    for index, (case, arm, seed) in enumerate(todo):
        text = json.dumps(case.scenarios[arm], sort_keys=True)
        tasks.append((index, ("json", text, matrix.base_dir), [], seed))
        keys[index] = (case.id, arm, seed)
    bar = _progress_bar(total, progress, desc="nvmesim ab", initial=total - len(todo))
    try:
        return execute(tasks, _Journal(store, keys), workers=workers, client=client, bar=bar)
    finally:
        if bar is not None:
            bar.close()
        store.close()
