"""``nvmesim run --format fio-json`` against fio's own layout: one reader, written as a
script for real fio output would be, reads both a fio 3.x file and the simulator's.

``data/fio-3.36_randrw.json`` is a fixture in the layout fio 3.36 writes for
``fio --name=randrw --filename=/dev/nvme0n1 --ioengine=io_uring --direct=1 --rw=randrw
--rwmixread=70 --bs=4k --iodepth=8 --runtime=10 --time_based --output-format=json``:
keys, their order and nesting, and number formats as stat.c (show_thread_status_json,
add_ddir_status_json, add_ddir_lat_json) and json.c print them, with fio's defaults
(clat_percentiles=1, lat_percentiles=0, the 17-entry percentile_list). Its figures are
made up but consistent (iops = 1000 * total_ios / runtime, bw = bw_bytes / 1024); it was
written from fio's source, not captured from a run.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

import nvmesim
from nvmesim.compare import load_measurement

DATA = Path(__file__).resolve().parent / "data"
FIXTURE = DATA / "fio-3.36_randrw.json"

FIO_PERCENTILES = ["1.000000", "5.000000", "10.000000", "20.000000", "30.000000", "40.000000",
                   "50.000000", "60.000000", "70.000000", "80.000000", "90.000000", "95.000000",
                   "99.000000", "99.500000", "99.900000", "99.950000", "99.990000"]


def read_fio(doc):
    """What a script written for fio's JSON reads: per job and direction, IOPS, bandwidth,
    the completion-latency percentiles (p95, p99.5 among them), latency min/mean/stddev,
    and the job's depth and latency distributions. KeyError if a key is missing."""
    assert doc["fio version"].startswith("fio-3.")
    out = []
    for job in doc["jobs"]:
        dirs = {}
        for d in ("read", "write", "trim"):
            o = job[d]
            dirs[d] = {
                "iops": float(o["iops"]), "bw_kib": int(o["bw"]), "ios": int(o["total_ios"]),
                "runtime_ms": int(o["runtime"]),
                "clat_p95": o["clat_ns"]["percentile"]["95.000000"] if o["total_ios"] else None,
                "clat_p99_5": o["clat_ns"]["percentile"]["99.500000"] if o["total_ios"] else None,
                "clat_min": o["clat_ns"]["min"], "clat_stddev": o["clat_ns"]["stddev"],
                "lat_mean": o["lat_ns"]["mean"], "lat_n": o["lat_ns"]["N"],
                "slat_mean": o["slat_ns"]["mean"],
                "bw_mean": o["bw_mean"], "iops_mean": o["iops_mean"],
            }
        out.append({"name": job["jobname"], "dirs": dirs, "usr": job["usr_cpu"], "sys": job["sys_cpu"],
                    "depth": job["iodepth_level"], "lat_us": job["latency_us"],
                    "lat_ms": job["latency_ms"], "sync_ios": job["sync"]["total_ios"]})
    return out


def keys_of(obj, prefix=""):
    """Every key path of a JSON object, array elements by index 0 (one job's shape)."""
    paths = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = f"{prefix}/{k}"
            paths.add(p)
            paths |= keys_of(v, p)
    elif isinstance(obj, list) and obj:
        paths |= keys_of(obj[0], prefix + "/0")
    return paths


@pytest.fixture(scope="module")
def sim_files(build_dir, tmp_path_factory):
    """The C++ writer's fio JSON (core_tests' FioJson.WritesFilesForThePythonReader)."""
    out = tmp_path_factory.mktemp("fio_json")
    core_tests = build_dir / "tests" / "core_tests"
    if not core_tests.is_file():
        pytest.skip(f"{core_tests} not built: build the core_tests target")
    env = dict(os.environ, NVMESIM_FIO_JSON_OUT=str(out), NVMESIM_SCENARIOS=nvmesim.default_scenarios_dir())
    p = subprocess.run([str(core_tests), "--gtest_filter=FioJson.WritesFilesForThePythonReader"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    return out


def test_the_fixture_reads():
    [job] = read_fio(json.loads(FIXTURE.read_text()))
    rd, wr = job["dirs"]["read"], job["dirs"]["write"]
    assert rd["iops"] == pytest.approx(1000.0 * rd["ios"] / rd["runtime_ms"])
    assert rd["clat_p95"] < rd["clat_p99_5"]
    assert wr["ios"] > 0 and job["dirs"]["trim"]["ios"] == 0
    assert job["depth"]["8"] == 100.0


def test_the_simulators_randrw_reads_with_the_same_reader(sim_files):
    sim = json.loads((sim_files / "randrw_fio.json").read_text())
    fio = json.loads(FIXTURE.read_text())
    [job] = read_fio(sim)
    rd, wr = job["dirs"]["read"], job["dirs"]["write"]
    # rwmixread 70: reads and writes each in their own section, as fio reports them.
    assert rd["ios"] > 0 and wr["ios"] > 0
    assert rd["ios"] / (rd["ios"] + wr["ios"]) == pytest.approx(0.70, abs=0.03)
    for d in (rd, wr):
        assert 0 < d["clat_min"] <= d["clat_p95"] <= d["clat_p99_5"]
        assert d["clat_stddev"] >= 0 and d["lat_n"] == d["ios"]
        assert d["slat_mean"] == 0  # no separate submission latency (docs/results.md)
    assert job["dirs"]["trim"]["ios"] == 0 and job["sync_ios"] == 0
    # The same percentile keys, in fio's order, in both files.
    for doc in (fio, sim):
        for d in ("read", "write"):
            assert list(doc["jobs"][0][d]["clat_ns"]["percentile"]) == FIO_PERCENTILES


def test_the_simulators_shape_is_fios(sim_files):
    """Every key path of fio's job is in the simulator's job, except what the simulator
    cannot know and fio leaves out when it does not know it either (docs/results.md):
    job options differ by job (they are the job file's), and disk_util (fio writes it
    only with the kernel's disk statistics). The simulator adds lat_ns percentiles
    (lat_percentiles=1, said in its global options) and the top-level `nvmesim`."""
    fio = json.loads(FIXTURE.read_text())
    for name in ("randrw", "one_job", "default"):
        sim = json.loads((sim_files / f"{name}_fio.json").read_text())
        fio_keys = {k for k in keys_of(fio) if "/job options/" not in k and not k.startswith("/disk_util")}
        sim_keys = {k for k in keys_of(sim) if "/job options/" not in k}
        # A read-only job's write section has no percentiles (no samples), as fio's.
        if name != "randrw":
            fio_keys = {k for k in fio_keys if not k.startswith("/jobs/0/write/clat_ns/percentile")}
        assert fio_keys - sim_keys == set(), name
        extra = {k for k in sim_keys - fio_keys
                 if not k.startswith(("/nvmesim", "/global options"))
                 and not k.startswith(("/jobs/0/read/lat_ns/percentile", "/jobs/0/write/lat_ns/percentile"))}
        assert extra == set(), name


def test_the_projects_readers_read_both(sim_files):
    """nvmesim compare (and, through the same C++ reader, calibrate) read both files."""
    fio = load_measurement(FIXTURE)
    assert fio.source == "fio"
    assert fio.metrics["iops"] == pytest.approx(126022.79772 + 54006.29937)
    sim = load_measurement(sim_files / "randrw_fio.json")
    assert sim.source == "fio" and sim.metrics["iops"] > 0
    one = load_measurement(sim_files / "one_job_fio.json")
    assert one.metrics["lat_p50"] > 0
