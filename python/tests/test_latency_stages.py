"""nvmesim.latency_stages: the stages of the commands' latency from a command trace."""

import subprocess
from pathlib import Path

import pandas as pd
import pytest

import nvmesim

DEFAULT = Path(__file__).resolve().parents[2] / "scenarios" / "default.json"
WARMUP_US = 500
# The default testbed at QD32 a job: short, and below policy A's default watermark.
QD32 = [f"--set=jobs.{j}.iodepth=32" for j in range(4)]


def trace_of(cli, tmp_path, name, *sets):
    path = tmp_path / f"{name}.csv"
    subprocess.run([str(cli), "run", str(DEFAULT), "-q", "--duration-us", "2000", "--warmup-us", str(WARMUP_US),
                    *QD32, *sets, "--command-trace", str(path)], check=True)
    return path


def test_stages_add_up_to_the_latency(cli, tmp_path):
    path = trace_of(cli, tmp_path, "irq")
    s = nvmesim.latency_stages(path, since_ns=WARMUP_US * 1000)
    assert list(s.index) == ["submit_to_doorbell", "device", "host", "device_and_host", "total"]
    rows = pd.read_csv(path)
    cmds = rows[(rows.kind == "cmd") & (rows.submit_ns >= WARMUP_US * 1000)]
    assert (s["count"] == len(cmds)).all()
    # Per command the stages add up, so their means do.
    assert s.at["device", "mean_us"] + s.at["host", "mean_us"] == pytest.approx(s.at["device_and_host", "mean_us"])
    assert s.at["submit_to_doorbell", "mean_us"] + s.at["device_and_host", "mean_us"] == pytest.approx(
        s.at["total", "mean_us"])
    assert (s["p50_us"] <= s["p99_us"]).all() and (s["p99_us"] <= s["p99.9_us"]).all()
    # The tail's commands are the slow ones: their whole latency's mean is at least its p99.
    assert s.at["total", "tail_mean_us"] >= s.at["total", "p99_us"]
    # Under interrupts a posted CQE waits for the interrupt's delivery and handler: a few us.
    assert s.at["host", "p99_us"] < 10


@pytest.mark.parametrize("interval_us", [30, 100])
def test_a_polling_threads_sleep_is_the_host_stage(cli, tmp_path, interval_us):
    # Policy A polling from inflight 8 on: a CQE posted just after its thread went to sleep
    # waits the whole fsleep, and none waits much longer (one pass more).
    path = trace_of(cli, tmp_path, f"poll{interval_us}", "--set=policy.name=watermark",
                    "--set=policy.params.inflight_high=8", f"--set=policy.params.interval_us={interval_us}")
    s = nvmesim.latency_stages(path, since_ns=WARMUP_US * 1000)
    assert interval_us <= s.at["host", "p99_us"] <= interval_us + 10
    irq = nvmesim.latency_stages(trace_of(cli, tmp_path, "irq"), since_ns=WARMUP_US * 1000)
    assert s.at["host", "mean_us"] > 4 * irq.at["host", "mean_us"]


def test_a_hardware_trace_has_no_device_or_host_stage(tmp_path):
    # nvmesim-hw writes no cqe_posted_ns (the host cannot see it); an inflight row is no command.
    header = ("kind,t_ns,queue,cid,op,lba,blocks,submit_ns,doorbell_ns,cqe_posted_ns,cqe_seen_ns,irq_ns,"
              "completed_by,status,cqes,mode_from,mode_to,reason,unit_done_ns")
    lines = [header,
             "cmd,5000,1,0,read,0,8,1000,1500,,5000,4800,irq,0,,,,,",
             "cmd,9000,1,1,write,8,8,2000,2500,,9000,,thread,0,,,,,",
             "inflight,10000,1,2,read,16,8,9500,,,,,,,,,,,"]
    path = tmp_path / "hw.csv"
    path.write_text("\n".join(lines) + "\n")
    s = nvmesim.latency_stages(path)
    assert list(s.index) == ["submit_to_doorbell", "device_and_host", "total"]
    assert s.at["total", "count"] == 2
    assert s.at["total", "mean_us"] == pytest.approx((4.0 + 7.0) / 2)
    assert nvmesim.latency_stages(path, op="write").at["device_and_host", "mean_us"] == pytest.approx(6.5)


def test_bad_input_says_what(tmp_path):
    path = tmp_path / "not.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match=r"not\.csv: not a command trace .*no column cqe_posted_ns"):
        nvmesim.latency_stages(path)
    good = tmp_path / "one.csv"
    good.write_text("kind,t_ns,queue,cid,op,lba,blocks,submit_ns,doorbell_ns,cqe_posted_ns,cqe_seen_ns\n"
                    "cmd,5000,1,0,read,0,8,1000,1500,4000,5000\n")
    with pytest.raises(ValueError, match=r"op 'flush': the trace's commands are read"):
        nvmesim.latency_stages(good, op="flush")
    with pytest.raises(ValueError, match=r"no command in the trace submitted since 2000 ns"):
        nvmesim.latency_stages(good, since_ns=2000)
