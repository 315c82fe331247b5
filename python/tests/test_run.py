"""nvmesim.run: the same results as the CLI, errors with JSON paths, the accessors."""

import json
import subprocess

import pytest

import nvmesim
from nvmesim.errors import ScenarioError


def run_cli(cli, scenario, sets, seed, out):
    cmd = [str(cli), "run", str(scenario), "--quiet", "-o", str(out)]
    for s in sets:
        cmd += ["--set", s]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return out.read_text()


@pytest.mark.parametrize("policy", ["irq", "watermark", "poll"])
def test_run_equals_cli(cli, default_path, tmp_path, policy):
    sets = ["duration_us=2000", "warmup_us=500", f"policy.name={policy}", "/jobs/1/iodepth=64"]
    text = run_cli(cli, default_path, sets, 7, tmp_path / "cli.json")
    result = nvmesim.run(default_path, duration_us=2000, warmup_us=500, policy__name=policy,
                         overrides={"jobs/1/iodepth": 64}, seed=7)
    assert result.to_json() == text  # byte for byte
    assert result.data == json.loads(text)
    assert result.seed == 7


def test_run_dict_equals_cli(cli, default_path, tmp_path):
    text = run_cli(cli, default_path, ["duration_us=2000", "warmup_us=500"], 3, tmp_path / "cli.json")
    doc = json.loads(default_path.read_text())
    doc.update(duration_us=2000, warmup_us=500)
    result = nvmesim.run(doc, seed=3)  # relative profile names resolve to the shipped ones
    assert result.data == json.loads(text)


def test_fio_job_file_equals_cli(cli, tmp_path):
    fio = tmp_path / "job.fio"
    fio.write_text("[global]\nioengine=io_uring\nrw=randread\nbs=4k\ndirect=1\n"
                   "[qd16]\niodepth=16\nnumjobs=2\ncpus_allowed=0-1\n")
    sets = ["duration_us=2000", "warmup_us=500"]
    text = run_cli(cli, fio, sets, 5, tmp_path / "cli.json")
    result = nvmesim.run(str(fio), duration_us=2000, warmup_us=500, seed=5)
    assert result.data == json.loads(text)
    assert result.scenario["jobs"][0]["iodepth"] == 16


def test_shipped_name_and_spellings(short):
    a = nvmesim.run("default", seed=2, **short, jobs__0__iodepth=32)
    b = nvmesim.run("default", seed=2, overrides={"/jobs/0/iodepth": 32, **short})
    c = nvmesim.run("default", seed=2, **{"jobs.0.iodepth": 32}, **short)
    assert a.to_json() == b.to_json() == c.to_json()
    assert a.scenario["jobs"][0]["iodepth"] == 32


def test_wildcard_sets_every_job(short):
    resolved = nvmesim.load("default", **{"jobs.*.iodepth": 48}, **short)
    assert [j["iodepth"] for j in resolved["jobs"]] == [48] * len(resolved["jobs"])
    assert len(resolved["jobs"]) == 4


def test_same_seed_same_results_other_seed_differs(short):
    a = nvmesim.run("default", seed=11, **short)
    b = nvmesim.run("default", seed=11, **short)
    c = nvmesim.run("default", seed=12, **short)
    assert a.to_json() == b.to_json()
    assert a.to_json() != c.to_json()


@pytest.mark.parametrize("overrides, path", [
    ({"jobs.0.iodepth": 0}, "/jobs/0/iodepth"),
    ({"jobs__2__iodepth": -3}, "/jobs/2/iodepth"),
    ({"policy.name": "nosuch"}, "/policy/name"),
    ({"jobs/9/iodepth": 4}, "/jobs/9"),
    ({"queue_depth": "deep"}, "/queue_depth"),
])
def test_bad_override_raises_with_path(short, overrides, path):
    with pytest.raises(ScenarioError) as info:
        nvmesim.run("default", overrides=overrides, **short)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.path == path
    assert err.message and err.message in str(err) and path in str(err)


@pytest.mark.parametrize("overrides, path", [
    # A dict holding a nan was dumped as NaN, no JSON: the engine took the whole value for
    # a bare string and said "/drives/0/profile/read: must be an object".
    ({"drives.0.profile.read": {"dist": "empirical", "cdf": [[float("nan"), 100], [1.0, 200]]}},
     "/drives/0/profile/read/cdf/0/0"),
    ({"drives.0.profile.read": {"dist": "constant", "mean_ns": float("inf")}}, "/drives/0/profile/read/mean_ns"),
    ({"duration_us": float("nan")}, "/duration_us"),
])
def test_a_nan_or_infinite_value_is_named_where_it_is(short, overrides, path):
    with pytest.raises(ScenarioError) as info:
        nvmesim.load("default", overrides=overrides)
    assert info.value.path == path
    assert "must be a finite number" in info.value.message
    with pytest.raises(ScenarioError) as info:
        nvmesim.load({"name": "x", "jobs": [{"iodepth": float("-inf")}]})
    assert info.value.path == "/jobs/0/iodepth"


def test_error_matches_cli_message(cli, default_path):
    proc = subprocess.run([str(cli), "validate", str(default_path), "--set", "jobs.0.iodepth=0"],
                          capture_output=True, text=True)
    assert proc.returncode != 0
    with pytest.raises(ScenarioError) as info:
        nvmesim.load(default_path, jobs__0__iodepth=0)
    assert info.value.path in proc.stderr + proc.stdout
    assert info.value.message in proc.stderr + proc.stdout


def test_missing_file_and_bad_types():
    with pytest.raises(ScenarioError):
        nvmesim.run("/nonexistent/scenario.json")
    with pytest.raises(TypeError):
        nvmesim.run(42)
    with pytest.raises(ScenarioError) as info:
        nvmesim.run({"name": "empty"})
    assert info.value.path.startswith("/")


def test_scenario_error_pickles():
    import pickle

    err = pickle.loads(pickle.dumps(ScenarioError("/a/b", "bad")))
    assert (err.path, err.message, str(err)) == ("/a/b", "bad", "/a/b: bad")
    with pytest.raises(nvmesim.ScenarioError) as info:
        nvmesim._core.raise_input_error("/x", "from C++")
    assert info.value.path == "/x" and info.value.message == "from C++"


def test_result_accessors(short, tmp_path):
    r = nvmesim.run("default", policy__name="watermark", **short)
    agg = r.data["aggregate"]
    assert r.iops == agg["iops"] > 0
    assert r.latency(99) == r.latency("p99") == r.latency(0.99) == agg["latency_ns"]["p99"]
    assert r.latency(99.9) == agg["latency_ns"]["p99.9"]
    assert r.latency("max") >= r.latency(50) > 0
    assert r.latency(50, job=0) == r.data["jobs"][0]["latency_ns"]["p50"]
    with pytest.raises(KeyError):
        r.latency(42)
    cores = r.cores
    assert list(cores.columns[:6]) == ["core", "hardirq", "softirq", "irq_thread", "app", "idle"]
    assert len(cores) == len(r.data["cores"])
    sums = cores[["hardirq", "softirq", "irq_thread", "app", "idle"]].sum(axis=1)
    assert ((sums - 1.0).abs() < 1e-6).all()
    queues = r.queues
    assert len(queues) == len(r.data["queues"]) and "latency_p99_ns" in queues
    assert "mode_switches" in queues and "interrupts_total" in queues
    tl = r.timeline
    assert list(tl.columns) == ["queue", "drive", "qid", "t_ns", "from", "to", "reason"]
    assert len(tl) == sum(len(q["mode_timeline"]) for q in r.data["queues"]) > 0
    assert tl["t_ns"].is_monotonic_increasing
    assert len(r.jobs) == len(r.data["jobs"]) and len(r.drives) == 4
    cdf = r.latency_cdf
    assert cdf["fraction"].iloc[-1] == pytest.approx(1.0)
    m = r.metrics()
    assert m["mode_switches"] == queues["counters_mode_changes"].sum() <= len(tl)
    assert m["p99_ns"] == r.latency(99)
    out = tmp_path / "r.json"
    assert r.to_json(out) == out.read_text()
    assert "iops=" in repr(r) and r.info["ios"] > 0


def test_progress_callback(short):
    seen = []
    nvmesim.run("default", progress=seen.append, **short)
    assert seen and all(0.0 <= f <= 1.0 for f in seen)


def test_threads_leave_the_results_alone(short):
    # The default scenario is two independent partitions (the drives of each socket).
    one = nvmesim.run("default", threads=1, **short)
    two = nvmesim.run("default", threads=2, **short)
    assert one.info["partitions"] == 2
    assert (one.info["threads"], two.info["threads"]) == (1, 2)
    assert two.to_json() == one.to_json()  # byte for byte


@pytest.mark.parametrize("policy", ["irq", "rate", "coalesce_adaptive"])
def test_checked_runs_keep_their_results(short, policy):
    # check_invariants checks the document against docs/results.md's laws (a broken one
    # raises RuntimeError); a sound run is unchanged by being checked.
    plain = nvmesim.run("default", policy__name=policy, **short)
    checked = nvmesim.run("default", policy__name=policy, check_invariants=True, **short)
    assert checked.to_json() == plain.to_json()


@pytest.mark.parametrize("threads", [0, -1, 1025, 1.5, "2", True])
def test_bad_threads_raise(short, threads):
    with pytest.raises(ValueError, match="threads: must be an integer from 1 to 1024"):
        nvmesim.run("default", threads=threads, **short)


def test_import_without_environment(tmp_path):
    """After the set-up (cmake --install <build> --component python), the system
    interpreter finds nvmesim with no environment variables."""
    env = {"PATH": "/usr/bin:/bin"}
    proc = subprocess.run(["/usr/bin/python3", "-c", "import nvmesim; print(nvmesim._core.__file__)"],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("seed, error", [
    (-1, ValueError), (2**64, ValueError),      # the binding refused these with a note on argument types
    (1.5, TypeError), (True, TypeError), ("7", TypeError), ([1], TypeError),  # int() made 1.5 and True seed 1
])
def test_bad_seed_raises_naming_it(seed, error):
    with pytest.raises(error, match=r"^seed: must be an integer from 0 to 18446744073709551615, got "):
        nvmesim.load("default", seed=seed)


def test_good_seeds_still_load():
    assert nvmesim.load("default", seed=0)["seed"] == 0
    assert nvmesim.load("default", seed=2**64 - 1)["seed"] == 2**64 - 1
    assert nvmesim.load("default", seed=7.0)["seed"] == 7  # an integral float, as JSON's 7.0


def test_progress_that_is_not_callable_raises_before_running(short):
    with pytest.raises(TypeError, match="progress: must be a callable"):
        nvmesim.run("default", progress=5, **short)
