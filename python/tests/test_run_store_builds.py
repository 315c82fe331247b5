"""The run table records which builds of nvmesim made its rows (DIR/matrix.json's
``builds``), and resuming rows that another build made is warned of, naming the folder and
the builds: a rebuilt model can give other results for the same scenario and seed."""

import json
import subprocess
import sys
import warnings

import pytest

from nvmesim import ab
from nvmesim._build import build_digest
from test_league import _matrix

OTHER = "0123456789abcdef"


def _marker(out):
    return json.loads((out / "matrix.json").read_text())


def _drop_last_rows(out, n):
    lines = (out / "runs.csv").read_text().splitlines(keepends=True)
    (out / "runs.csv").write_text("".join(lines[:-n]))


@pytest.fixture
def done(tmp_path):
    matrix = _matrix(tmp_path, candidate={"name": "watermark"})
    out = tmp_path / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fresh folder warns of nothing
        ab(matrix, out=out, progress=False)
    return matrix, out


def test_a_fresh_table_records_its_build(done):
    _, out = done
    assert _marker(out)["builds"] == [build_digest()]
    assert len(build_digest()) == 16 and int(build_digest(), 16) >= 0


def test_resuming_this_builds_rows_warns_of_nothing(done):
    matrix, out = done
    _drop_last_rows(out, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ab(matrix, out=out, progress=False)
    assert _marker(out)["builds"] == [build_digest()]


def test_resuming_another_builds_rows_warns_and_records_both(done):
    matrix, out = done
    marker = _marker(out)
    marker["builds"] = [OTHER]
    (out / "matrix.json").write_text(json.dumps(marker))
    _drop_last_rows(out, 3)
    with pytest.warns(RuntimeWarning) as caught:
        ab(matrix, out=out, progress=False)
    text = " ".join(str(w.message) for w in caught)
    for words in (str(out), "27 runs on disk", f"build {OTHER}", f"this is build {build_digest()}",
                  "give another -o"):
        assert words in text
    assert _marker(out)["builds"] == [OTHER, build_digest()]
    # From now on the table holds both builds' rows, and says so on every resume.
    with pytest.warns(RuntimeWarning, match=f"builds {OTHER}, {build_digest()}"):
        ab(matrix, out=out, progress=False)


def test_a_table_from_before_builds_were_recorded_is_warned_of(done):
    matrix, out = done
    marker = _marker(out)
    del marker["builds"]
    (out / "matrix.json").write_text(json.dumps(marker))
    with pytest.warns(RuntimeWarning, match="a build that did not record itself"):
        ab(matrix, out=out, progress=False)
    assert "builds" not in _marker(out)  # nothing ran: no row of this build's was added


def test_the_command_line_says_it_as_a_warning_of_its_own(done):
    matrix, out = done
    marker = _marker(out)
    marker["builds"] = [OTHER]
    (out / "matrix.json").write_text(json.dumps(marker))
    run = subprocess.run([sys.executable, "-m", "nvmesim.ab", str(matrix), "-o", str(out), "--no-progress"],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith(f"nvmesim ab: warning: {out}: its 30 runs on disk were made by build {OTHER}")
    assert "RuntimeWarning" not in run.stderr


def test_rows_copied_between_a_leagues_tables_keep_the_builds_that_made_them(tmp_path):
    from nvmesim import league
    from test_league import CANDIDATES

    matrix = _matrix(tmp_path, candidates=CANDIDATES)
    out = tmp_path / "out"
    league(matrix, out=out, progress=False)
    kept = out / "watermark"
    marker = _marker(kept)
    marker["builds"] = [OTHER]
    (kept / "matrix.json").write_text(json.dumps(marker))
    for name in ("runs.csv", "matrix.json"):  # as tools/policy_league.py --rerun threaded
        (out / "threaded" / name).unlink()
    with pytest.warns(RuntimeWarning, match=f"{kept}: its 30 runs on disk were made by build {OTHER}"):
        league(matrix, out=out, progress=False)
    # threaded's baseline rows came from watermark's table, its own from this build.
    assert _marker(out / "threaded")["builds"] == [OTHER, build_digest()]
    assert _marker(kept)["builds"] == [OTHER]
