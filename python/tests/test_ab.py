"""nvmesim.ab: verdicts on planted data, the matrix spec, runs (serial, processes, Dask),
resuming, the report, the hw runner's A B A B order and its results parsing."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas.testing as pdt
import pytest

import nvmesim
from nvmesim import ab as ab_function
from nvmesim.ab import Limits, MatrixError, load_matrix, store as store_module, verdict
from policy_a_slice import policy_a_slice

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "scenarios" / "matrices" / "policy_a_eval.json"
FAKE_HW = Path(__file__).resolve().parent / "data" / "fake_nvmesim_hw.py"
OUTPUTS = ("runs.csv", "cases.csv", "report.md", "report.html", "heatmap.png", "utilisation.png")


# -- verdicts on planted data ------------------------------------------------------------

def _planted(rng, gain, noise, n=5, level=1e6):
    base = level * (1 + rng.normal(0, noise, n))
    cand = level * (1 + gain) * (1 + rng.normal(0, noise, n))
    return base, cand


def test_ten_percent_gain_with_one_percent_noise_is_an_improvement():
    rng = np.random.default_rng(1)
    for _ in range(10):
        v = verdict(*_planted(rng, 0.10, 0.01))
        assert v["verdict"] == "improvement", v
        assert 0.07 < v["ci_low"] <= v["change"] <= v["ci_high"] < 0.13
        assert v["p_value"] < 0.01


def test_ten_percent_loss_with_one_percent_noise_is_a_regression():
    rng = np.random.default_rng(2)
    for _ in range(10):
        assert verdict(*_planted(rng, -0.10, 0.01))["verdict"] == "regression"


def test_no_gain_with_one_percent_noise_is_no_change():
    rng = np.random.default_rng(3)
    verdicts = [verdict(*_planted(rng, 0.0, 0.01)) for _ in range(20)]
    # With 5 seeds the 95% interval of a 0% change under 1% noise reaches past the 2%
    # threshold now and then (then: too variable); it must never claim a change.
    names = [v["verdict"] for v in verdicts]
    assert set(names) <= {"no change", "too variable"}
    assert names.count("no change") >= 16, names
    assert all(v["threshold"] == pytest.approx(0.02) or v["threshold"] > 0.02 for v in verdicts)


def test_twenty_percent_noise_is_too_variable():
    rng = np.random.default_rng(4)
    for gain in (0.0, 0.10):
        for _ in range(10):
            base = 1e6 * (1 + rng.uniform(-0.2, 0.2, 5))
            cand = 1e6 * (1 + gain) * (1 + rng.uniform(-0.2, 0.2, 5))
            v = verdict(base, cand)
            assert v["verdict"] == "too variable", v
            assert "baseline CV" in v["reason"]


def test_identical_arms_are_no_change_and_lower_is_better_swaps_the_names():
    same = verdict([100.0, 101.0, 99.0], [100.0, 101.0, 99.0])
    assert same["verdict"] == "no change" and same["p_value"] == 1.0 and same["change"] == 0.0
    rng = np.random.default_rng(5)
    base, cand = _planted(rng, 0.10, 0.01)  # p99 10% higher: worse
    assert verdict(base, cand, higher_is_better=False)["verdict"] == "regression"


def test_limits_are_options():
    rng = np.random.default_rng(6)
    base, cand = _planted(rng, 0.10, 0.01)
    assert verdict(base, cand, Limits(threshold_min=0.2))["verdict"] == "no change"
    assert verdict(base, cand, Limits(cv_limit=0.001))["verdict"] == "too variable"
    with pytest.raises(ValueError, match="alpha"):
        Limits(alpha=0)


# -- the matrix spec -----------------------------------------------------------------------

def test_shipped_matrix_lists_over_500_cases_from_the_command_line():
    done = subprocess.run([sys.executable, "-m", "nvmesim.ab", str(SHIPPED), "--list"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["case", "block", "drive", "drives", "ioengine", "numjobs",
                                "workload", "iodepth"]
    assert len(lines) - 2 >= 500
    assert lines[-1].startswith(f"{len(lines) - 2} cases x 5 seeds x 2 arms (irq, watermark)")


def test_a_reader_that_stops_early_ends_the_listing_quietly():
    # `nvmesim ab --list | head -2`: the reader goes (here before the listing is written,
    # so that its first write meets a closed pipe whatever the pipe's buffer holds); the
    # command ends as a C tool killed by SIGPIPE would (141), with no traceback.
    proc = subprocess.Popen([sys.executable, "-m", "nvmesim.ab", str(SHIPPED), "--list"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait() == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_shipped_matrix_has_the_evaluation_shape():
    m = load_matrix(SHIPPED)
    assert len(m.cases) == 512 and m.seeds == [1, 2, 3, 4, 5]
    values = {axis: {str(c.labels[axis]) for c in m.cases} for axis in m.axes}
    assert values["drive"] == {"D7-PS1010", "PM9D3a"}
    assert values["drives"] == {"1", "4"} and values["numjobs"] == {"1", "4"}
    assert values["ioengine"] == {"libaio", "io_uring"}
    # every value next to policy A's thresholds (inflight_low 3, inflight_high 32)
    assert {"1", "2", "3", "4", "31", "32", "33", "64", "1024"} <= values["iodepth"]
    assert {(c.rw, c.bs_bytes) for c in m.cases} == {
        ("randread", 4096), ("randwrite", 4096), ("read", 131072), ("write", 131072)}
    one = next(c for c in m.cases if c.labels["drives"] == 1 and c.labels["drive"] == "PM9D3a")
    base, cand = one.scenarios["baseline"], one.scenarios["candidate"]
    assert len(base["drives"]) == 1 and len(base["jobs"]) == 1
    assert base["drives"][0]["profile"].endswith("samsung_pm9d3a.json")
    assert base["policy"]["name"] == "irq" and cand["policy"]["name"] == "watermark"
    assert {k: v for k, v in base.items() if k != "policy"} == \
        {k: v for k, v in cand.items() if k != "policy"}


def _tiny(tmp_path, **changes):
    """A small matrix: one drive, io_uring, 4K randread at QD 4 and 64 and 128K read at
    QD 8, five seeds (the fewest with which the permutation test can reach p < 0.01)."""
    doc = policy_a_slice([4, 64], [8], seeds=5, duration_us=2000, warmup_us=500)
    doc.update(changes)
    # profile paths of the inline base are relative to the matrix file's directory
    path = tmp_path / "matrices" / "tiny.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "profiles").mkdir(exist_ok=True)
    for profile in (REPO / "scenarios" / "profiles").glob("*.json"):
        (tmp_path / "profiles" / profile.name).write_text(profile.read_text())
    path.write_text(json.dumps(doc, indent=1))
    return path


def test_multi_drive_matrix_places_drives_and_jobs_on_sockets():
    """scenarios/matrices/multi_drive_eval.json (issue 34 item 4): 4, 8 and 16 drives,
    packed or spread over the two sockets, each drive's jobs on cores of its socket (every
    case's scenarios load: load_matrix validates them)."""
    m = load_matrix(SHIPPED.parent / "multi_drive_eval.json")
    assert len(m.cases) == 1260
    values = {axis: {str(c.labels[axis]) for c in m.cases} for axis in m.axes}
    assert values["drives"] == {"4", "8", "16"} and values["placement"] == {"packed", "spread"}
    assert values["numjobs"] == {"1", "4", "8"} and values["drive"] == {"D7-PS1010", "PM9D3a"}
    assert {"31", "32", "33", "34"} <= values["iodepth"]
    assert {(c.rw, c.bs_bytes) for c in m.cases} == {
        ("randread", 4096), ("randwrite", 4096), ("randrw", 4096), ("read", 131072),
        ("write", 131072)}

    for placement, drives, want in (("packed", 8, [0] * 8), ("spread", 8, [0, 1] * 4),
                                    ("packed", 16, [0] * 8 + [1] * 8), ("spread", 4, [0, 1, 0, 1])):
        case = next(c for c in m.cases if c.labels["placement"] == placement and
                    c.labels["drives"] == drives)
        doc = case.scenarios["baseline"]
        assert [d["socket"] for d in doc["drives"]] == want, (placement, drives)
        for job, socket in zip(doc["jobs"], want):  # eight cores of the drive's socket
            first, last = map(int, job["cpus_allowed"].split("-"))
            assert last - first == 7 and first // 64 == socket == last // 64, job


def test_axes_of_policy_parameters_and_batches(tmp_path):
    matrix = _tiny(tmp_path, axes=[
        {"name": "drives", "drive_count": [1]},
        {"name": "high", "path": "/candidate/params/inflight_high", "values": [16, 64]},
        {"name": "batch", "values": [
            {"label": "b1", "set": {"jobs.*.iodepth_batch_submit": 1}},
            {"label": "b4", "set": {"jobs.*.iodepth_batch_submit": 4}}]}])
    m = load_matrix(matrix)
    assert len(m.cases) == 2 * 2 * 3
    first = m.cases[0]
    assert first.labels == {"block": "4K random", "drives": 1, "high": 16, "batch": "b1",
                            "workload": "4K randread", "iodepth": 4}
    assert first.scenarios["candidate"]["policy"]["params"]["inflight_high"] == 16
    assert "inflight_high" not in first.scenarios["baseline"]["policy"]["params"]
    assert m.cases[3].scenarios["baseline"]["jobs"][0]["iodepth_batch_submit"] == 4


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "nvmesim.ab", *map(str, args)],
                          capture_output=True, text=True, check=False)


@pytest.mark.parametrize("change, path, words", [
    ({"seeds": 0}, "/seeds", "minimum"),
    ({"baseline": {"params": {}}}, "/baseline", "'name' is a required property"),
    ({"axes": [{"name": "clones", "path": "/jobs/*/numjobs", "values": [1, 0]}]},
     "/axes/0/values/1", "/jobs/0/numjobs"),
    ({"candidate": {"name": "watermark", "params": {"inflight_high": 2000}}},
     "/candidate/params/inflight_high", "inflight_high"),
    ({"axes": [{"name": "drives", "drive_count": [8]}]}, "/axes/0/drive_count/0", "fewer than 8"),
    ({"axes": [{"name": "x", "path": "/policy/name", "values": ["poll"]}]}, "/axes/0/values/0",
     "the policy is the arm's"),
])
def test_bad_matrix_exits_2_naming_the_json_path(tmp_path, change, path, words):
    matrix = _tiny(tmp_path, **change)
    done = _cli(matrix, "--list")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"nvmesim ab: {matrix}: {path}: "), done.stderr
    assert words in done.stderr
    with pytest.raises(MatrixError) as info:
        load_matrix(matrix)
    assert info.value.path == path


def test_help_and_not_json(tmp_path):
    assert _cli("--help").returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    done = _cli(bad)
    assert done.returncode == 2 and "is not JSON" in done.stderr


@pytest.mark.parametrize("change, where", [
    # 10 x 10 x 10 x 11 > MAX_CASES: refused before a case is built (seconds, not minutes)
    ({"axes": [{"name": f"a{i}", "path": "/jobs/*/iodepth", "values": list(range(1, n + 1))}
               for i, n in enumerate((10, 10, 10, 11))], "blocks": None}, "/axes"),
    ({"blocks": [{"name": "big", "axes": [
        {"name": f"b{i}", "path": "/jobs/*/iodepth", "values": list(range(1, 23))}
        for i in range(3)]}]}, "/blocks/0/axes"),
])
def test_list_caps_the_cases_before_expanding(tmp_path, change, where):
    from nvmesim.ab.matrix import MAX_CASES
    matrix = _tiny(tmp_path, **change)
    doc = json.loads(matrix.read_text())
    if doc["blocks"] is None:
        del doc["blocks"]
        matrix.write_text(json.dumps(doc))
    done = _cli(matrix, "--list")
    assert done.returncode == 2, done.stderr
    assert f"{where}: the axes expand to more than {MAX_CASES} cases" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("args, change, words", [
    (["--seeds", "100000000000000000000"], {}, "--seeds: 100000000000000000000 seeds per arm"),
    ([], {"seeds": [1, 2**64]}, "/seeds: a seed must be from 0 to 18446744073709551615"),
])
def test_huge_seeds_exit_2(tmp_path, args, change, words):
    done = _cli(_tiny(tmp_path, **change), "--list", *args)
    assert done.returncode == 2 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("data, words", [
    (b'{"format": "\xff"}', "the file is not UTF-8 text (byte 12)"),
    (b'{"seeds": NaN}', "the file is not JSON (NaN is not a JSON number)"),
    (b"[" * 100000, "the file is not JSON"),
])
def test_unreadable_matrices_exit_2_naming_the_file(tmp_path, data, words):
    bad = tmp_path / "bad.json"
    bad.write_bytes(data)
    done = _cli(bad, "--list")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"nvmesim ab: {bad}: ") and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


# -- running, resuming, the report -----------------------------------------------------------

@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return _tiny(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def serial_run(tiny, tmp_path_factory):
    out = tmp_path_factory.mktemp("serial")
    return ab_function(tiny, out=out, progress=False)


def _read(directory):
    return {name: (Path(directory) / name).read_bytes() for name in OUTPUTS}


def test_run_writes_every_run_and_the_report(serial_run):
    result = serial_run
    assert not result.interrupted
    assert len(result.runs) == 3 * 5 * 2
    assert result.runs["error"].isna().all() and (result.runs["iops"] > 0).all()
    with open(result.directory / "runs.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 30
    cases = result.cases
    assert list(cases["iodepth"]) == ["4", "64", "8"]
    assert set(cases["verdict"]) <= {"improvement", "regression", "no change", "too variable"}
    # policy A at depth 64 on io_uring takes the queue out of interrupt mode
    deep = cases[cases["iodepth"] == "64"].iloc[0]
    assert deep["irqs_per_io_candidate"] < deep["irqs_per_io_baseline"]
    assert deep["verdict"] == "improvement" and deep["p_value"] < 0.01, deep["reason"]
    assert cases.iloc[0]["verdict"] == "no change"  # QD 4: policy A stays in interrupt mode
    summary = "\n".join(result.summary)
    assert summary.startswith("3 cases, 5 seeds per arm (30 runs): 1 confirmed improvement, "
                              "0 confirmed regressions, ")
    assert "Gain of the one improvement: +" in summary and "improvements" not in summary
    assert "IRQs per I/O on reads: reduced by" in summary
    assert "128K sequential:" in summary
    report = (result.directory / "report.md").read_text()
    assert "## Summary" in report and "![heatmap](heatmap.png)" in report
    assert "data:image/png;base64," in (result.directory / "report.html").read_text()


def _heatmap_cells(fig):
    """(text colour, cell colour, text) of every figure written on the heat map."""
    ax = fig.axes[0]
    image = ax.images[0]
    grid = image.get_array()
    out = []
    for text in ax.texts:
        j, i = (int(round(v)) for v in text.get_position())
        out.append((text.get_color(), image.cmap(image.norm(grid[i, j])), text.get_text()))
    return out


def test_heatmap_figures_contrast_with_their_cells(serial_run, tiny):
    """Black on a light cell, white on a dark one: with planted changes of -90%, 0 and
    +90% both ends of the colour map are there."""
    import matplotlib.pyplot as plt

    from nvmesim._figures import contrast_ratio, overflow
    from nvmesim.ab.report import heatmap

    cases = serial_run.cases.copy()
    cases["change_pct"] = [-90.0, 0.0, 90.0]
    fig = heatmap(cases, load_matrix(tiny))
    cells = _heatmap_cells(fig)
    assert len(cells) == 3
    for text_colour, cell_colour, text in cells:
        assert contrast_ratio(text_colour, cell_colour) >= 4.5, (text, text_colour, cell_colour)
    assert {c for c, _, _ in cells} == {"black", "white"}
    fig.canvas.draw()
    assert max(overflow(fig)) <= 0.5  # the title and the labels are whole
    title = fig.axes[0].title.get_window_extent(fig.canvas.get_renderer())
    assert fig.bbox.x0 <= title.x0 and title.x1 <= fig.bbox.x1
    assert fig.axes[0].get_xlabel() == "queue depth (per job)"
    plt.close(fig)


def test_heatmap_grows_with_its_cells(serial_run, tiny):
    """Six times the rows and twice the columns: a larger figure whose cells keep room
    for their figures (at least 0.5 x 0.25 inch)."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from nvmesim.ab.report import heatmap

    matrix = load_matrix(tiny)
    small = heatmap(serial_run.cases, matrix)
    copies = []
    for k in range(6):
        for depth in ("4", "64", "8", "256", "1024", "16"):
            copy = serial_run.cases.copy()
            copy["workload"] = copy["workload"] + f" #{k}"
            copy["iodepth"] = depth
            copies.append(copy)
    big = heatmap(pd.concat(copies, ignore_index=True), matrix)
    (sw, sh), (bw, bh) = small.get_size_inches(), big.get_size_inches()
    assert bw > sw and bh > sh
    ax = big.axes[0]
    height = ax.get_window_extent().height / len(ax.get_yticks()) / big.dpi
    width = ax.get_window_extent().width / len(ax.get_xticks()) / big.dpi
    assert height >= 0.25 and width >= 0.5, (width, height)
    assert small.dpi * sw >= 600  # not the 360 px of before
    plt.close(small)
    plt.close(big)


def test_report_tables_have_human_headers(serial_run):
    import re

    page = (serial_run.directory / "report.html").read_text()
    headers = re.findall(r"<th>([^<]*)</th>", page)
    assert "IOPS change (%)" in headers and "queue depth (per job)" in headers
    assert "CI of the change (%)" in headers
    assert not [h for h in headers if "_" in h], headers
    assert "table-layout:auto" in page and "max-width:100%" in page
    report = (serial_run.directory / "report.md").read_text()
    assert "| case | block | drives | I/O engine | workload | queue depth (per job) |" in report
    # The machine-readable table keeps its names.
    assert "change_pct" in (serial_run.directory / "cases.csv").read_text().splitlines()[0]


def test_summary_of_one_case_is_singular(serial_run, tiny):
    from nvmesim.ab.report import summary_lines

    one = serial_run.cases[serial_run.cases["verdict"] == "improvement"].head(1)
    lines = summary_lines(one, load_matrix(tiny))
    assert lines[0].startswith("1 case, 5 seeds per arm (10 runs): 1 confirmed improvement, "
                               "0 confirmed regressions"), lines[0]
    text = " ".join(lines)
    assert "1 cases" not in text and "1 improvements" not in text and "1 read cases" not in text


def test_each_case_says_what_its_mean_latency_and_cpu_per_io_did(serial_run):
    runs, cases = serial_run.runs, serial_run.cases.set_index("case")
    for case_id, part in runs.groupby("case"):
        b, c = part[part["arm"] == "baseline"], part[part["arm"] == "candidate"]
        mean = 100.0 * (c["mean_ns"].mean() / b["mean_ns"].mean() - 1.0)
        per_io = lambda r: ((1.0 - r["cpu_idle"]) / r["iops"]).mean()  # noqa: E731
        cpu = 100.0 * (per_io(c) / per_io(b) - 1.0)
        assert cases.at[case_id, "mean_latency_change_pct"] == pytest.approx(mean), case_id
        assert cases.at[case_id, "cpu_per_io_change_pct"] == pytest.approx(cpu), case_id
    assert "mean_latency_change_pct" in (serial_run.directory / "cases.csv").read_text().splitlines()[0]


def test_a_p99_regression_is_listed_with_what_came_with_it(serial_run, tiny):
    from nvmesim.ab.report import summary_lines

    cases = serial_run.cases.head(1).copy()
    cases["p99_regression"] = True
    cases["p99_change_pct"] = 4.0
    cases["change_pct"] = 15.3
    cases["mean_latency_change_pct"] = -1.0
    cases["cpu_per_io_change_pct"] = -31.5
    text = " ".join(summary_lines(cases, load_matrix(tiny)))
    assert "1 p99 latency regression, each with what came with it: c0000 (" in text, text
    assert ") p99 +4.0% (IOPS +15.3%, mean latency -1.0%, CPU per I/O -31.5%)." in text, text


def test_a_run_equals_nvmesim_run(serial_run, tiny):
    m = load_matrix(tiny)
    runs = serial_run.runs
    row = runs[(runs["case"] == "c0001") & (runs["arm"] == "candidate") & (runs["seed"] == 2)]
    assert len(row) == 1
    row = row.iloc[0]
    r = nvmesim.run(m.cases[1].scenarios["candidate"], base_dir=m.base_dir, seed=2)
    for key in ("iops", "p99_ns", "irqs_per_io", "cpu_busy_max"):
        assert row[key] == r.metrics()[key], key


def test_resumed_run_gives_the_same_files(serial_run, tiny, tmp_path, monkeypatch):
    add = store_module.RunStore.add
    calls = {"n": 0}

    def killed_after_seven(self, *args, **kwargs):
        if calls["n"] == 7:
            raise KeyboardInterrupt
        calls["n"] += 1
        return add(self, *args, **kwargs)

    monkeypatch.setattr(store_module.RunStore, "add", killed_after_seven)
    first = ab_function(tiny, out=tmp_path, progress=False)
    assert first.interrupted and len(first.runs) == 7
    assert not (tmp_path / "report.md").exists()
    monkeypatch.setattr(store_module.RunStore, "add", add)
    with open(tmp_path / "runs.csv", "a") as f:
        f.write("c0002,candidate,3,,12")  # a row torn by a kill: no newline
    second = ab_function(tiny, out=tmp_path, progress=False)
    assert not second.interrupted and len(second.runs) == 30
    assert not second.runs.duplicated(["case", "arm", "seed"]).any()
    assert _read(tmp_path) == _read(serial_run.directory)
    # Everything on disk: a third call runs nothing and gives the same files again.
    monkeypatch.setattr(store_module.RunStore, "add", lambda *a, **k: pytest.fail("ran again"))
    ab_function(tiny, out=tmp_path, progress=False)
    assert _read(tmp_path) == _read(serial_run.directory)


def test_resume_refuses_another_matrix(serial_run, tmp_path):
    other = _tiny(tmp_path, seeds=2)
    with pytest.raises(MatrixError, match="another matrix"):
        ab_function(other, out=serial_run.directory, progress=False)


def test_processes_and_command_line_equal_serial(serial_run, tiny, tmp_path):
    done = _cli(tiny, "--workers", "2", "-o", tmp_path, "--no-progress")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("3 cases, 5 seeds per arm (30 runs): ")
    assert _read(tmp_path) == _read(serial_run.directory)


def test_dask_local_cluster_equals_serial(serial_run, tiny, tmp_path):
    from distributed import Client, LocalCluster

    # Worker threads start faster than processes; test_sweep covers process workers.
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, host="127.0.0.1",
                      protocol="tcp", dashboard_address=None) as cluster:
        with Client(cluster) as client:
            result = ab_function(tiny, out=tmp_path / "api", client=client, progress=False)
        # The command line's --scheduler connects to the same cluster from another process.
        done = _cli(tiny, "--scheduler", cluster.scheduler_address, "-o", tmp_path / "cli",
                    "--no-progress")
    assert done.returncode == 0, done.stderr
    pdt.assert_frame_equal(result.cases, serial_run.cases)
    assert _read(tmp_path / "api") == _read(serial_run.directory)
    assert _read(tmp_path / "cli") == _read(serial_run.directory)


# -- real drives: the hw runner against a stand-in nvmesim-hw ----------------------------

def _hw_matrix(tmp_path, drive_counts):
    """Two seeds, QD 64 only: few runs, as each is a fresh stand-in process."""
    path = _tiny(tmp_path, seeds=2)
    doc = json.loads(path.read_text())
    doc["axes"][0]["drive_count"] = drive_counts
    doc["blocks"] = doc["blocks"][:1]
    doc["blocks"][0]["axes"][1]["values"] = [64]
    path.write_text(json.dumps(doc))
    return path


def test_hw_runs_interleave_the_arms_and_parse_hw_results(tmp_path, monkeypatch):
    matrix = _hw_matrix(tmp_path, [1, 2])
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_HW_LOG", str(log))
    out = tmp_path / "out"
    result = ab_function(matrix, out=out, hw_device="0000:3b:00.0", hw_cli=str(FAKE_HW),
                         progress=False)
    runs = result.runs
    one = runs[runs["drives"] == "1"]
    assert one["error"].isna().all() and (one["iops"] > 0).all()
    assert one["bound_by"].isna().all()  # hw results have no "limits"
    # The order column is the order of the calls: A B A B ... within each case.
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(calls) == len(one) == 2 * 2
    ordered = one.sort_values("order")
    assert list(ordered["order"]) == list(range(len(one)))
    assert list(ordered["arm"]) == ["baseline", "candidate"] * (len(one) // 2)
    assert list(ordered["seed"]) == [1, 1, 2, 2]
    for call, (_, row) in zip(calls, ordered.iterrows()):
        assert call[:3] == ["run", "--device", "0000:3b:00.0"]
        assert call[call.index("--seed") + 1] == str(row["seed"])
        assert Path(call[3]).name == f"{row['case']}-{row['arm']}.json"
    # Same figures as the simulator's own run of that scenario and seed.
    first = ordered.iloc[1]
    spec = load_matrix(matrix)
    case = next(c for c in spec.cases if c.id == first["case"])
    r = nvmesim.run(case.scenarios["candidate"], base_dir=spec.base_dir, seed=int(first["seed"]))
    assert first["iops"] == r.iops and first["p99_ns"] == r.latency(99)
    # Two-drive cases are not run on one drive; they say so.
    two = runs[runs["drives"] == "2"]
    assert two["error"].str.contains("nvmesim-hw runs one drive").all()
    assert two["order"].isna().all()
    assert (result.cases.loc[result.cases["drives"] == "2", "verdict"] == "too variable").all()
    assert (out / "report.md").exists()


def test_hw_stops_on_a_fatal_drive_and_resumes(tmp_path, monkeypatch):
    matrix = _hw_matrix(tmp_path, [1])
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_HW_LOG", str(log))
    monkeypatch.setenv("FAKE_HW_FAIL_DEVICE", "0000:00:01.0")
    done = _cli(matrix, "--hw-device", "0000:00:01.0", "--hw-cli", FAKE_HW, "-o", tmp_path / "o",
                "--no-progress")
    assert done.returncode == 1 and "controller fatal" in done.stderr
    assert len(log.read_text().splitlines()) == 1
    monkeypatch.delenv("FAKE_HW_FAIL_DEVICE")
    result = ab_function(matrix, out=tmp_path / "o", hw_device="0000:00:01.0",
                         hw_cli=str(FAKE_HW), progress=False)
    assert not result.interrupted and len(log.read_text().splitlines()) == 1 + 4
    with open(tmp_path / "o" / "runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4 and sorted(int(r["order"]) for r in rows) == list(range(4))


@pytest.mark.parametrize("kwargs, path, words", [
    ({"seeds": 2.5}, "--seeds", "must be a count of seeds or a list of seeds, got 2.5"),  # was len(2.5): TypeError
    ({"seeds": True}, "--seeds", "must be a count of seeds"),                               # was one seed
    ({"seeds": [1, 1.5]}, "--seeds/1", "a seed must be an integer"),                        # was seed 1
    ({"duration_us": 1.5}, "--duration-us", "must be a whole number of microseconds"),     # was 1 us
    ({"warmup_us": "500"}, "--warmup-us", "must be a whole number of microseconds"),
])
def test_bad_seeds_and_window_options_name_the_option(tmp_path, kwargs, path, words):
    with pytest.raises(MatrixError) as info:
        load_matrix(_tiny(tmp_path), validate=False, **kwargs)
    assert info.value.path == path and words in info.value.message, str(info.value)


def test_a_matrix_seed_given_as_a_fraction_names_its_path(tmp_path):
    with pytest.raises(MatrixError) as info:
        load_matrix(_tiny(tmp_path, duration_us=2000.5), validate=False)
    assert info.value.path in ("/duration_us",), str(info.value)
