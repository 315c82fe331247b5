"""The run table on disk: one CSV row per finished run, written as each run finishes.

``DIR/runs.csv`` is the journal while a run is in progress and the run table when it is
done. Each row is appended, flushed and fsync'ed before the next, so a run that is killed
loses at most the row being written; a torn last line (no newline) is dropped on resume.
A (case, arm, seed) that is already on disk is never run or counted again. When every run
is done the table is rewritten in (case, arm, seed) order, so a resumed run leaves the
same file as an uninterrupted one.

``DIR/matrix.json`` records which matrix (its digest) the rows belong to; resuming into a
directory of another matrix is refused. For simulated runs it also records the builds of
nvmesim that added rows (``builds``: nvmesim._build.build_digest). A rebuilt model can give
other results for the same scenario and seed, so resuming rows that another build made is
allowed (keeping the runs of unchanged policies is what a league's rerun of one candidate
is for) but warned of, with the folder and the builds named.
"""

import csv
import io
import json
import math
import os
import warnings
from pathlib import Path

from .._sweep import METRIC_COLUMNS
from .matrix import ARMS, MatrixError

__all__ = ["RunStore", "RUN_COLUMNS", "UNRECORDED"]

#: Columns of every row, after the case's axis labels.
RUN_COLUMNS = ("case", "arm", "seed", "order", *METRIC_COLUMNS, "error")
_TEXT = {"case", "arm", "bound_by", "error", "block"}
#: In ``builds``: rows from before a table recorded the builds that made them.
UNRECORDED = "unrecorded"


def _cell(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(value) if isinstance(value, float) else str(value)


class RunStore:
    """The rows of one output directory; ``done`` holds the (case, arm, seed) on disk."""

    def __init__(self, directory, matrix, kind="sim"):
        self.dir = Path(directory)
        self.path = self.dir / "runs.csv"
        self.axes = list(matrix.axes)
        has_block = any("block" in c.labels for c in matrix.cases)
        self.columns = (["block"] if has_block else []) + self.axes + list(RUN_COLUMNS)
        self.cases = {c.id: c for c in matrix.cases}
        self.rows = {}
        self.dir.mkdir(parents=True, exist_ok=True)
        self.identity = {"format": "nvmesim-ab-run/1", "matrix": matrix.path, "name": matrix.name,
                         "digest": matrix.digest, "kind": kind}
        self.marker = self.dir / "matrix.json"
        self.build = None
        if kind == "sim":
            from .._build import build_digest

            self.build = build_digest()
        if self.marker.exists():
            old = json.loads(self.marker.read_text(encoding="utf-8"))
            if old.get("digest") != matrix.digest or old.get("kind") != kind:
                raise MatrixError("", f"{self.dir} holds runs of another matrix, seed list, run "
                                      f"length or runner ({old.get('matrix')}); give another -o")
            self.identity = old
        else:
            self._write_marker()
        self._read()
        self._warn_other_builds()
        self._file = None

    def _write_marker(self):
        tmp = self.marker.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.identity, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, self.marker)

    def _warn_other_builds(self):
        """Rows on disk that another build of nvmesim may have made are named, not refused."""
        if self.build is None or not self.rows:
            return
        builds = self.builds()
        if builds == [self.build]:
            return
        made_by = (f"builds {', '.join(builds)}" if len(builds) > 1 else
                   "a build that did not record itself" if builds == [UNRECORDED] else f"build {builds[0]}")
        warnings.warn(f"{self.dir}: its {len(self.rows)} runs on disk were made by {made_by} of nvmesim, "
                      f"and this is build {self.build}: the runs it adds sit beside them, and the "
                      "report reads them all. For one build's results, give another -o "
                      "(tools/policy_league.py --rerun LABEL drops one candidate's runs)",
                      RuntimeWarning, stacklevel=3)

    def builds(self):
        """The builds that made the rows on disk (UNRECORDED for rows from before builds
        were recorded); None for runs on a drive."""
        if self.build is None:
            return None
        return self.identity.get("builds") or ([UNRECORDED] if self.rows else [])

    def _record_builds(self, made_by):
        """Rows made by the builds `made_by` go in: the marker lists each of them once."""
        builds = self.builds()
        new = [b for b in dict.fromkeys(made_by) if b not in builds]
        if new:
            self.identity = {**self.identity, "builds": builds + new}
            self._write_marker()

    def _read(self):
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            data = data[: data.rfind(b"\n") + 1]  # a torn last row from a killed run
            with open(self.path, "r+b") as out:
                out.truncate(len(data))
        reader = csv.DictReader(io.StringIO(data.decode("utf-8")))
        if reader.fieldnames and list(reader.fieldnames) != self.columns:
            raise MatrixError("", f"{self.path} has other columns than this matrix's runs")
        for raw in reader:
            row = {k: self._parse(k, v) for k, v in raw.items()}
            key = (row["case"], row["arm"], row["seed"])
            self.rows.setdefault(key, row)

    def _parse(self, key, text):
        if text == "":
            return None if key in _TEXT or key in self.axes else math.nan
        if key in ("seed", "order"):
            return int(text)
        if key in _TEXT:
            return text
        if key in self.axes:
            return text
        return float(text)

    @property
    def done(self):
        return set(self.rows)

    def _writer(self):
        if self._file is None:
            new = not self.path.exists() or self.path.stat().st_size == 0
            self._file = open(self.path, "a", newline="", encoding="utf-8")
            if new:
                self._write_line(self.columns)
        return self._file

    def _write_line(self, cells):
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(cells)
        self._file.write(buffer.getvalue())
        self._file.flush()
        os.fsync(self._file.fileno())

    def add(self, case_id, arm, seed, metrics, error, order=None, made_by=None):
        """Records one finished run (a no-op for one already on disk). `made_by`: the builds
        of a row copied from another table (its builds()), else this build ran it."""
        key = (case_id, arm, int(seed))
        if key in self.rows:
            return
        case = self.cases[case_id]
        row = {"block": case.labels.get("block")}
        row.update({a: (str(case.labels[a]) if a in case.labels else None) for a in self.axes})
        row.update(case=case_id, arm=arm, seed=int(seed), order=order)
        for name in METRIC_COLUMNS:
            value = (metrics or {}).get(name)
            row[name] = value if name == "bound_by" else (math.nan if value is None else float(value))
        row["error"] = error
        if self.build is not None:
            self._record_builds(made_by if made_by is not None else [self.build])
        self._writer()
        self._write_line([_cell(row.get(c)) for c in self.columns])
        # Keep what a reader of the file gets back, so a fresh run and a resumed one agree.
        self.rows[key] = {c: self._parse(c, _cell(row.get(c))) for c in self.columns}

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def finish(self):
        """Rewrites the table in (case, arm, seed) order (atomically)."""
        self.close()
        arm_rank = {a: i for i, a in enumerate(ARMS)}
        keys = sorted(self.rows, key=lambda k: (k[0], arm_rank[k[1]], k[2]))
        tmp = self.path.with_suffix(".csv.tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(self.columns)
            for key in keys:
                writer.writerow([_cell(self.rows[key].get(c)) for c in self.columns])
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.path)

    def frame(self):
        """The rows as a DataFrame in (case, arm, seed) order."""
        import pandas as pd

        arm_rank = {a: i for i, a in enumerate(ARMS)}
        keys = sorted(self.rows, key=lambda k: (k[0], arm_rank[k[1]], k[2]))
        return pd.DataFrame([self.rows[k] for k in keys], columns=self.columns)
