"""nvmesim.sweep: shape of the DataFrame, serial = processes = threads, failures, Ctrl-C."""

import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import pandas.testing as pdt
import pytest

import nvmesim
from nvmesim import _sweep as sweep_module
from nvmesim import METRIC_COLUMNS

GRID = {"jobs.*.iodepth": [32, 64], "policy.name": ["irq", "watermark"]}
SEEDS = [1, 2]


@pytest.fixture(scope="module")
def serial():
    return nvmesim.sweep("default", GRID, seeds=SEEDS, progress=False,
                         duration_us=2000, warmup_us=500)


def test_sweep_rows_and_columns(serial):
    assert len(serial) == 8
    assert list(serial.columns) == ["iodepth", "policy", "seed", *METRIC_COLUMNS, "error"]
    assert serial["error"].isna().all()
    assert list(serial["iodepth"]) == [32] * 4 + [64] * 4
    assert list(serial["policy"]) == ["irq", "irq", "watermark", "watermark"] * 2
    assert list(serial["seed"]) == SEEDS * 4
    assert (serial["iops"] > 0).all() and (serial["p99_ns"] >= serial["p50_ns"]).all()
    for state in ("hardirq", "softirq", "irq_thread", "app", "idle"):
        assert serial[f"cpu_{state}"].between(0, 1).all()
    assert (serial.loc[serial["policy"] == "irq", "mode_switches"] == 0).all()
    assert serial.attrs["params"] == {"iodepth": "jobs.*.iodepth", "policy": "policy.name"}
    assert serial.attrs["interrupted"] is False


def test_sweep_row_equals_run(serial):
    row = serial.iloc[5]  # iodepth 64, irq, seed 2
    r = nvmesim.run("default", seed=2, policy__name="irq", duration_us=2000, warmup_us=500,
                    **{"jobs.*.iodepth": 64})
    for key, value in r.metrics().items():
        assert row[key] == value, key


def test_processes_equal_serial(serial):
    parallel = nvmesim.sweep("default", GRID, seeds=SEEDS, workers=2, progress=False,
                             duration_us=2000, warmup_us=500)
    pdt.assert_frame_equal(parallel, serial)


@pytest.mark.parametrize("processes", [True, False])
def test_dask_local_cluster_equals_serial(serial, processes):
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=processes,
                      host="127.0.0.1", protocol="tcp", dashboard_address=None) as cluster, \
            Client(cluster) as client:
        on_dask = nvmesim.sweep("default", GRID, seeds=SEEDS, client=client, progress=False,
                                duration_us=2000, warmup_us=500)
    pdt.assert_frame_equal(on_dask, serial)


def test_failed_point_is_reported_and_the_rest_completes():
    df = nvmesim.sweep("default", {"jobs.0.iodepth": [16, 0, 64]}, seeds=[1], progress=False,
                       duration_us=2000, warmup_us=500,
                       overrides={"jobs.*.iodepth_batch_submit": 1,
                                  "jobs.*.iodepth_batch_complete_min": 1,
                                  "jobs.*.iodepth_batch_complete_max": 1})
    assert len(df) == 3
    assert df["error"].isna().tolist() == [True, False, True]
    assert "/jobs/0/iodepth" in df.loc[1, "error"]
    assert df["iops"].isna().tolist() == [False, True, False]


def test_a_grid_key_that_names_no_field_raises_before_running(monkeypatch):
    ran = []
    monkeypatch.setattr(sweep_module, "execute", lambda *a, **k: ran.append(1))
    for key, path in (("jobs.0.iodeth", "/jobs/0/iodeth"), ("jobs.*.iodeth", "/jobs/0/iodeth"),
                      ("polcy.name", "/polcy")):
        with pytest.raises(nvmesim.ScenarioError) as info:
            nvmesim.sweep("default", {key: [4, 8]}, progress=False, duration_us=2000)
        assert info.value.path == path
        assert f"grid key {key!r} names no scenario field" in info.value.message
    assert ran == []


def test_grid_as_list_of_points_and_labels():
    points = [{"jobs.*.iodepth": 32, "policy.name": "irq"}, {"jobs.*.iodepth": 64}]
    df = nvmesim.sweep("default", points, progress=False, labels={"jobs.*.iodepth": "qd"},
                       duration_us=2000, warmup_us=500)
    assert list(df.columns[:3]) == ["qd", "policy", "seed"]
    assert df["policy"].tolist()[0] == "irq" and df["policy"].isna().tolist()[1]
    assert df["seed"].tolist() == [1, 1]  # the scenario's own seed


def test_bad_base_raises_before_running():
    with pytest.raises(nvmesim.ScenarioError) as info:
        nvmesim.sweep("default", {"policy.name": ["irq"]}, duration_us=-1, progress=False)
    assert info.value.path == "/duration_us"


@pytest.mark.parametrize("workers", [None, 2])
def test_interrupt_keeps_finished_rows(monkeypatch, workers):
    record = sweep_module._record
    calls = {"n": 0}

    def interrupting_record(outcomes, outcome, bar):
        record(outcomes, outcome, bar)
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(sweep_module, "_record", interrupting_record)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = nvmesim.sweep("default", GRID, seeds=SEEDS, workers=workers, progress=False,
                           duration_us=2000, warmup_us=500)
    assert df.attrs["interrupted"] is True
    assert 2 <= len(df) < 8
    assert df["error"].isna().all() and (df["iops"] > 0).all()
    assert any("interrupted" in str(w.message) for w in caught)


def test_threads_run_side_by_side_with_same_results():
    cases = [dict(seed=s, policy__name=p) for s in (1, 2) for p in ("irq", "watermark")]
    common = {"duration_us": 2000, "warmup_us": 500}
    one_by_one = [nvmesim.run("default", **c, **common).to_json() for c in cases]
    with ThreadPoolExecutor(max_workers=2) as pool:
        together = list(pool.map(lambda c: nvmesim.run("default", **c, **common).to_json(), cases))
    assert together == one_by_one


def _run_beside_a_python_loop(duration_us):
    """Runs one simulation in a thread while this thread counts loop turns; returns the
    result, the wall time, the longest gap between turns and the number of turns."""
    done = threading.Event()
    out = {}

    def work():
        out["r"] = nvmesim.run("default", duration_us=duration_us, warmup_us=5000)
        done.set()

    thread = threading.Thread(target=work)
    start = time.monotonic()
    thread.start()
    ticks, last, max_gap = 0, time.monotonic(), 0.0
    while not done.is_set():
        now = time.monotonic()
        max_gap, last = max(max_gap, now - last), now
        ticks += 1
    thread.join()
    return out["r"], time.monotonic() - start, max_gap, ticks


def test_simulation_releases_the_interpreter_lock():
    """While a simulation runs in one thread, this thread keeps running Python."""
    # Long enough to tell on any machine: the simulated time doubles until the run takes
    # 0.1 s of wall time (a faster simulator needs a longer run, not a looser test).
    duration_us = 20000
    while True:
        r, elapsed, max_gap, ticks = _run_beside_a_python_loop(duration_us)
        if elapsed > 0.1 or duration_us >= 2_560_000:
            break
        duration_us *= 2
    assert r.iops > 0
    assert elapsed > 0.1, "run too short to tell"
    assert max_gap < elapsed / 2, (max_gap, elapsed)
    assert ticks > 1000


def test_points_compared_run_the_same_warmup():
    # coalesce_adaptive (policy C) decides at the end of its first 50 ms cycle: the loader
    # lengthens its warm-up, and the irq point is given the same one, with a warning.
    grid = {"policy.name": ["irq", "coalesce_adaptive"]}
    with pytest.warns(RuntimeWarning, match=r"1 of 2 points run a longer warm-up \(1 of them from 500 us to 50500 us\)"):
        df = nvmesim.sweep("default", grid, progress=False, duration_us=500, warmup_us=500)
    assert df.attrs["warmup_us"] == [50500, 50500]
    r = nvmesim.run("default", policy__name="irq", duration_us=500, warmup_us=50500)
    for key, value in r.metrics().items():
        assert df.iloc[0][key] == value, key
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        own = nvmesim.sweep("default", grid, progress=False, duration_us=500, warmup_us=500,
                            equal_warmup=False)
    assert own.attrs["warmup_us"] == [500, 50500]
    assert own.iloc[1]["iops"] == df.iloc[1]["iops"]  # C's own run is the same either way
    assert own.iloc[0]["iops"] != df.iloc[0]["iops"]


def test_a_swept_warmup_is_not_equalised():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = nvmesim.sweep("default", {"warmup_us": [500, 1000]}, progress=False, duration_us=500)
    assert df.attrs["warmup_us"] == [500, 1000]


@pytest.mark.parametrize("kwargs, error, words", [
    ({"grid": {"policy.name": []}}, ValueError, "grid['policy.name'] is empty"),
    ({"grid": []}, ValueError, "grid is an empty list"),
    ({"seeds": []}, ValueError, "seeds: an empty list runs nothing"),
    ({"seeds": [1, -1]}, ValueError, "seeds[1]: must be an integer from 0 to"),
    ({"seeds": 1.5}, TypeError, "seeds: must be an integer from 0 to"),
    ({"workers": 0}, ValueError, "workers: must be an integer >= 1"),
    ({"workers": -2}, ValueError, "workers: must be an integer >= 1"),
    ({"workers": 1.5}, ValueError, "workers: must be an integer >= 1"),
])
def test_a_sweep_of_nothing_or_bad_options_raises_before_running(monkeypatch, kwargs, error, words):
    # Before: zero rows (an empty list, no seeds), a serial sweep (workers 0 or -2), or
    # every row failing alike (a negative seed) -- without a word.
    monkeypatch.setattr(sweep_module, "execute", lambda *a, **k: pytest.fail("ran"))
    args = {"grid": {"policy.name": ["irq"]}, **kwargs}
    with pytest.raises(error) as info:
        nvmesim.sweep("default", progress=False, duration_us=2000, warmup_us=500, **args)
    assert words in str(info.value)
