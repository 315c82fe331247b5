"""nvmesim.calibrate: the C++ fitter from Python, on measurements the simulator made at a
hidden value (the C++ tests cover the fitter and the ground truth in depth)."""

import json

import pytest

import nvmesim

SCENARIO = {
    "name": "small", "seed": 1, "duration_us": 8000, "warmup_us": 1000,
    "host": "profiles/host_testbed_a.json", "queue_depth": 1024,
    "drives": [{"name": "nvme0", "profile": "profiles/solidigm_sb5ph27x038t.json"}],
    "policy": {"name": "irq"},
    "jobs": [{"name": "j", "ioengine": "io_uring", "rw": "randread", "bs": "4k", "iodepth": 2,
              "cpus_allowed": "0", "drives": ["nvme0"]}],
}


def _spec(measured):
    return {"format": "nvmesim-calibrate/1", "name": "py", "starts": 2, "max_evaluations": 30,
            "neighbourhood": 4, "fitted_on": "2026-01-02",
            "parameters": [{"path": "/drives/*/profile/read/mean_ns", "min": 40000, "max": 150000}],
            "runs": [{"name": "qd2", "scenario": SCENARIO, "measured": measured}]}


def test_calibrate_recovers_a_hidden_service_time_and_writes_its_outputs(tmp_path):
    r = nvmesim.run(SCENARIO, {"/drives/0/profile/read/mean_ns": 85000})
    measured = {"iops": r.iops, "lat_p50": r.data["aggregate"]["latency_ns"]["p50"]}
    report = nvmesim.calibrate(_spec(measured), output=tmp_path / "p.json", report=tmp_path / "rep")
    (param,) = report["parameters"]
    assert param["path"] == "/drives/*/profile/read/mean_ns"
    assert param["interval"][0] <= 85000 <= param["interval"][1]
    assert param["identifiable"]
    profile = json.loads((tmp_path / "p.json").read_text())
    assert profile["read"]["mean_ns"] == param["value"]
    assert "on 2026-01-02" in profile["sources"]["read.mean_ns"]
    assert (tmp_path / "rep" / "report.md").read_text().startswith("# Calibration: py")
    assert json.loads((tmp_path / "rep" / "report.json").read_text())["fitted_profiles"]


def test_a_bad_spec_raises_scenario_error_with_its_path():
    spec = _spec({"iops": 1e5})
    spec["parameters"][0].pop("max")
    with pytest.raises(nvmesim.ScenarioError) as e:
        nvmesim.calibrate(spec)
    assert e.value.path == "/parameters/0"
