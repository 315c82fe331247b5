"""tools/policy_league.py --rerun: after a change to one policy, only that candidate's runs
run again; the baseline's come back from the other candidates' tables, and the league's
files are those of a league run from scratch."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from nvmesim import league
from test_league import CANDIDATES, LEAGUE_OUTPUTS, OUTPUTS, _counting_execute, _files, _matrix

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "policy_league.py"


def _tool():
    spec = importlib.util.spec_from_file_location("policy_league", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dropped_candidate_alone_runs_again_to_the_same_files(tmp_path, monkeypatch):
    matrix = _matrix(tmp_path, candidates=CANDIDATES)
    out = tmp_path / "out"
    first = league(matrix, out=out, progress=False)
    before = {label: _files(out / label, OUTPUTS) for label in ("watermark", "threaded")}
    league_files = _files(out, LEAGUE_OUTPUTS)

    _tool().drop_runs(out, ["threaded"])
    assert not (out / "threaded").exists() and not (out / "league.csv").exists()
    assert (out / "watermark" / "runs.csv").exists()

    counted = _counting_execute(monkeypatch)
    again = league(matrix, out=out, progress=False)
    assert not again.interrupted and first.directory == again.directory
    # Three cases, five seeds: threaded's 15 runs, and no baseline run.
    assert counted == [15]
    assert _files(out, LEAGUE_OUTPUTS) == league_files
    for label in ("watermark", "threaded"):
        assert _files(out / label, OUTPUTS) == before[label]


@pytest.mark.parametrize("args, words", [
    (["--cli", "nvmesim", "--rerun", "nosuch"], ["--rerun nosuch", "not a candidate", "measured"]),
    (["--from", "somewhere", "--rerun", "measured"], ["--rerun needs --cli"]),
])
def test_bad_reruns_exit_2_saying_why(args, words):
    done = subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    for word in words:
        assert word in done.stderr
