"""nvmesim.tune: a planted optimum found, the tuning and held-out halves kept apart,
resuming after a kill to the same study, invalid parameter sets recorded (not fatal),
the Pareto front, and bad options."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from nvmesim import tune
from nvmesim.ab import store as store_module
from nvmesim.tune import pareto_front, parse_param
from policy_a_slice import policy_a_slice

REPO = Path(__file__).resolve().parents[2]
# A matrix is read even when an objective stands in for its runs.
STUB = {"format": "nvmesim-ab-matrix/1", "base": {}, "baseline": {"name": "irq"},
        "candidate": {"name": "rate"}, "axes": []}


def _planted(params):
    """A smooth objective with its optimum at x=37, y=12, and a confirmed regression
    wherever x > 60 (where it is largest)."""
    x, y = params["x"], params["y"]
    gain = 50 - 0.05 * ((x - 37) ** 2 + (y - 12) ** 2) + (60 if x > 60 else 0)
    return {"gain_pct": gain, "regressions": int(x > 60), "p99_change_pct": 0.1 * abs(y - 20),
            "cpu_per_io_change_pct": 0.0}


def test_tpe_finds_a_planted_optimum_and_avoids_regressions(tmp_path):
    result = tune(STUB, "rate", {"x": (0, 100), "y": (0, 50)}, trials=40, out=tmp_path,
                  objective=_planted, progress=False)
    best = result.best["params"]
    assert math.dist((best["x"], best["y"]), (37, 12)) <= 6, best
    assert best["x"] <= 60  # the larger "gains" beyond 60 came with a regression
    assert result.trials["gain_pct"].max() > _planted(best)["gain_pct"]  # so they were seen
    assert json.loads((tmp_path / "best_policy.json").read_text()) == {"policy": result.best}
    for name in ("trials.csv", "pareto.csv", "pareto.png", "report.md", "report.html"):
        assert (tmp_path / name).stat().st_size > 0, name


def test_nsga2_front_is_not_dominated(tmp_path):
    result = tune(STUB, "rate", ["x=0:100", "y=0:50"], trials=24, out=tmp_path, sampler="nsga2",
                  objective=_planted, progress=False)
    front = result.front
    assert len(front) >= 1 and (front["regressions"] == 0).all()
    ok = result.trials[result.trials["regressions"] == 0]
    for _, f in front.iterrows():
        assert not any(o["gain_pct"] > f["gain_pct"] and o["p99_change_pct"] < f["p99_change_pct"]
                       for _, o in ok.iterrows())


def test_pareto_front_by_hand():
    trials = pd.DataFrame({"number": [0, 1, 2, 3], "gain_pct": [10.0, 20.0, 15.0, 30.0],
                           "regressions": [0, 0, 0, 1], "p99_change_pct": [1.0, 5.0, 6.0, 0.0],
                           "cpu_per_io_change_pct": [0.0, 0.0, 0.0, 0.0],
                           "error": [None, None, None, None]})
    assert list(pareto_front(trials)["number"]) == [1, 0]  # 2 is beaten by 1; 3 regresses


def test_killed_study_resumes_to_the_same_trials(tmp_path):
    calls = {"n": 0}

    def killed_at_seven(params):
        calls["n"] += 1
        if calls["n"] == 8:
            raise KeyboardInterrupt
        return _planted(params)

    whole = tune(STUB, "rate", {"x": (0, 100), "y": (0, 50)}, trials=15, out=tmp_path / "whole",
                 objective=_planted, progress=False)
    with pytest.raises(KeyboardInterrupt):
        tune(STUB, "rate", {"x": (0, 100), "y": (0, 50)}, trials=15, out=tmp_path / "killed",
             objective=killed_at_seven, progress=False)
    assert len((tmp_path / "killed" / "trials.jsonl").read_text().splitlines()) == 7
    resumed = tune(STUB, "rate", {"x": (0, 100), "y": (0, 50)}, trials=15, out=tmp_path / "killed",
                   objective=_planted, progress=False)
    assert (tmp_path / "killed" / "trials.jsonl").read_bytes() == \
        (tmp_path / "whole" / "trials.jsonl").read_bytes()
    assert resumed.best == whole.best


def _matrix(tmp_path):
    """Four cases on one drive (4K randread QD 8 and 64, 128K read QD 4 and 32): case
    numbers 0 and 2 tune, 1 and 3 are held out."""
    doc = policy_a_slice([8, 64], [4, 32], seeds=3, duration_us=1500, warmup_us=400)
    path = tmp_path / "matrices" / "tune.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "profiles").mkdir(exist_ok=True)
    for profile in (REPO / "scenarios" / "profiles").glob("*.json"):
        (tmp_path / "profiles" / profile.name).write_text(profile.read_text())
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture(scope="module")
def real_study(tmp_path_factory):
    root = tmp_path_factory.mktemp("tune")
    matrix = _matrix(root)
    result = tune(matrix, "watermark", ["inflight_high=8:64", "interval_us=5:60"], trials=3,
                  out=root / "out", progress=False)
    return matrix, result


def test_trials_see_only_the_tuning_half_and_the_best_is_judged_on_the_other(real_study):
    _, result = real_study
    d = result.directory
    for trial in sorted((d / "trials").iterdir()):
        runs = pd.read_csv(trial / "runs.csv")
        assert set(runs["case"]) == {"c0000", "c0002"}, trial
        assert len(runs) == 2 * 3 * 2  # two cases, three seeds, both arms
    held = pd.read_csv(d / "heldout" / "runs.csv")
    assert set(held["case"]) == {"c0001", "c0003"}
    # Each baseline run is the same in every trial (run once, shared).
    base = [pd.read_csv(t / "runs.csv").query("arm == 'baseline'").reset_index(drop=True)
            for t in sorted((d / "trials").iterdir())]
    for other in base[1:]:
        pd.testing.assert_frame_equal(base[0], other)
    assert len(result.trials) == 3 and result.heldout is not None
    assert any(line.startswith("Held-out half, the best parameters judged once: 2 cases")
               for line in result.summary)


def test_a_study_killed_inside_a_trial_resumes_to_the_same_files(real_study, tmp_path, monkeypatch):
    matrix, whole = real_study
    add = store_module.RunStore.add
    calls = {"n": 0}

    def killed(self, *args, **kwargs):
        if calls["n"] == 20:  # inside the second trial
            raise KeyboardInterrupt
        calls["n"] += 1
        return add(self, *args, **kwargs)

    monkeypatch.setattr(store_module.RunStore, "add", killed)
    first = tune(matrix, "watermark", ["inflight_high=8:64", "interval_us=5:60"], trials=3,
                 out=tmp_path, progress=False)
    assert first.interrupted
    monkeypatch.setattr(store_module.RunStore, "add", add)
    tune(matrix, "watermark", ["inflight_high=8:64", "interval_us=5:60"], trials=3, out=tmp_path,
         progress=False)
    for name in ("trials.jsonl", "trials.csv", "best_policy.json", "pareto.csv", "heldout/runs.csv"):
        assert (tmp_path / name).read_bytes() == (whole.directory / name).read_bytes(), name


def test_invalid_parameter_sets_are_recorded_not_fatal(tmp_path):
    # inflight_high must be above inflight_low: some of these pairs are not a policy.
    result = tune(_matrix(tmp_path), "watermark", ["inflight_low=1:40", "inflight_high=2:12"],
                  trials=6, out=tmp_path / "out", progress=False)
    bad = result.trials[result.trials["error"].notna()]
    assert len(bad), result.trials
    assert all("inflight_high" in e for e in bad["error"])
    assert (bad["value"] < -1e5).all()
    assert result.best["params"]["inflight_high"] > result.best["params"]["inflight_low"]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "nvmesim.tune", *map(str, args)],
                          capture_output=True, text=True, check=False)


@pytest.mark.parametrize("args, words", [
    (["--policy", "watermark"], "give at least one --param NAME=LO:HI"),
    (["--policy", "watermark", "--param", "inflight_high=8"], "give name=lo:hi"),
    (["--policy", "watermark", "--param", "inflight_high=64:8"], "lo 64 is above hi 8"),
    (["--policy", "watermark", "--param", "inflight_high=0:8"],
     "--policy watermark/params/inflight_high"),
    (["--policy", "nosuch", "--param", "x=1:2"], "unknown policy \"nosuch\""),
    (["--policy", "watermark", "--param", "inflight_high=8:16", "--trials", "0"],
     "--trials: must be >= 1, got 0"),
])
def test_bad_options_exit_2_saying_which(tmp_path, args, words):
    done = _cli(_matrix(tmp_path), *args, "-o", tmp_path / "out", "--no-progress")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_parse_param():
    assert parse_param("window=1024:16384") == ("window", 1024, 16384)
    with pytest.raises(ValueError, match="integers"):
        parse_param("window=a:b")


@pytest.mark.parametrize("params, words", [
    (["x=0:10", "x=5:8"], "--param 'x=5:8': x is given twice"),  # a dict kept the last range silently
    ({"x": (10, 0)}, "params['x']: lo 10 is above hi 0"),
    ({"x": (0.5, 10)}, "params['x']: lo and hi must be integers"),  # int() made it 0
    ({"x": 5}, "params['x']: must be (lo, hi)"),
])
def test_bad_ranges_raise_before_any_trial(tmp_path, params, words):
    with pytest.raises(ValueError) as info:
        tune(STUB, "rate", params, trials=2, out=tmp_path, objective=lambda p: pytest.fail("ran"))
    assert words in str(info.value)
