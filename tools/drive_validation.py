#!/usr/bin/env python3
"""The validation table of docs/drive-model.md: each shipped drive profile against its
datasheet figures, from small scenarios this script writes and runs with `nvmesim run`.

The host is ideal (every CPU cost 0, four cores), so that what is measured is the drive:
4 KiB random read and write (steady state and fresh out of the box), 128 KiB sequential
read and write, and the mean latency of one 4 KiB read and one 4 KiB write at QD1. The
steady-state random write is compared with the datasheet over the long run, its phases of
garbage collection (gc_pace_spread) shortened to 1 MiB of host data so that the window
averages over many of them, as a datasheet's minutes do; it is also run at seeds 1..5
with the profile's own phases (its spread once the loader's warm-up has covered the drive's
drawn state: each seed's window sees the phase it starts in).

  usage: tools/drive_validation.py --cli build/app/nvmesim            # prints the table
         tools/drive_validation.py --cli build/app/nvmesim --write    # into docs/drive-model.md
         tools/drive_validation.py --cli build/app/nvmesim --check    # exit 1 with a diff if it differs

The table sits in docs/drive-model.md between BEGIN/END markers (ctest `drive_validation`).
"""
import argparse
import difflib
import json
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "drive-model.md"
BEGIN = "<!-- BEGIN drive_validation.py -->"
END = "<!-- END drive_validation.py -->"

# Datasheet figures per profile, as its `sources` give them (None: no figure). Units: IOPS,
# bytes/s, ns.
DATASHEET = {
    "solidigm_sb5ph27x038t": {"randread": 3.2e6, "randwrite": 400e3, "read": 14.5e9, "write": 10e9, "qd1": None},
    "solidigm_sb5ph27x076t": {"randread": 3.1e6, "randwrite": 400e3, "read": 14.5e9, "write": 10e9, "qd1": None},
    "samsung_pm9d3a": {"randread": 2.0e6, "randwrite": 250e3, "read": 12e9, "write": 6.8e9, "qd1": 65000},
}
NOTES = {
    "solidigm_sb5ph27x038t": "reads: published.md (3.2M per drive on A's testbed, 14.5 GB/s); writes: the family's figures (StorageReview's D7-PS1030 review: 400K random write for the PS1010, 10 GB/s sequential), not the model's own",
    "solidigm_sb5ph27x076t": "reads: published.md (3.1M family, 14.5 GB/s); writes: the family's figures (StorageReview's D7-PS1030 review: 400K random write for the PS1010, 10 GB/s sequential), not the model's own",
    "samsung_pm9d3a": "the 7.68 TB listing (2.0M, 6.8 GB/s, 250K, 65 us average latency read as QD1 read latency) and published.md (12 GB/s)",
}
ZERO_HOST_KEYS = ["doorbell_mmio_ns", "irq_entry_ns", "irq_exit_ns", "irq_per_cqe_ns", "poll_per_cqe_ns",
                  "wakeup_ns", "context_switch_ns", "wakeup_latency_ns", "lazy_mask_ns", "irq_disable_ns",
                  "irq_enable_ns", "softirq_entry_ns", "hrtimer_arm_ns", "hrtimer_expiry_ns", "cond_resched_ns"]


def ideal_host():
    engine = {"syscall_ns": 0, "submit_per_io_ns": 0, "reap_per_io_ns": 0, "post_per_io_ns": 0}
    host = {"name": "ideal", "cores": 4, "libaio": dict(engine), "io_uring": dict(engine)}
    for k in ZERO_HOST_KEYS:
        host[k] = 0
    host["poll_empty_check_ns"] = 1
    return host


def scenario(profile, rw, bs, jobs, iodepth, warmup_us, duration_us, seed=1, state=None, long_run=False):
    prof = str(ROOT / "scenarios" / "profiles" / f"{profile}.json")
    doc = {"name": f"{profile}-{rw}", "seed": seed, "duration_us": duration_us, "warmup_us": warmup_us,
           "queue_depth": 4096, "host": ideal_host(),
           "drives": [{"name": "d0", "profile": prof}],
           "jobs": [{"name": f"j{i}", "rw": rw, "bs": bs, "iodepth": iodepth, "cpus_allowed": str(i)} for i in range(jobs)]}
    overrides = [] if state is None else [f"/drives/0/profile/state={state}"]
    if long_run:  # many phases of collection in the window: their long-run average
        overrides.append("/drives/0/profile/gc_pace_phase_mib=1")
    return doc, overrides


# (column, rw, bs, jobs, iodepth, warm-up us, window us, state, long run)
CASES = [
    ("randread", "randread", 4096, 4, 512, 2000, 10000, None, False),
    ("randwrite", "randwrite", 4096, 4, 128, 20000, 50000, None, True),
    ("randwrite_fob", "randwrite", 4096, 4, 128, 20000, 20000, "fob", False),
    ("read", "read", 131072, 4, 32, 2000, 10000, None, False),
    ("write", "write", 131072, 4, 32, 60000, 20000, None, False),  # past the drawn fill's collection
    ("qd1_read", "randread", 4096, 1, 1, 1000, 20000, None, False),
    ("qd1_write", "randwrite", 4096, 1, 1, 1000, 20000, None, False),
]
SEEDS = [1, 2, 3, 4, 5]


def run(cli, doc, overrides, tmp, name):
    path = Path(tmp) / f"{name}.json"
    out = Path(tmp) / f"{name}.out.json"
    path.write_text(json.dumps(doc))
    cmd = [cli, "run", str(path), "-o", str(out), "-q", "--threads", "1"]
    for o in overrides:
        cmd += ["--set", o]
    subprocess.run(cmd, check=True)
    return json.loads(out.read_text())


def measure(cli):
    tasks = {}
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=2) as pool:
        for profile in DATASHEET:
            for col, rw, bs, jobs, qd, warm, dur, state, long_run in CASES:
                doc, ov = scenario(profile, rw, bs, jobs, qd, warm, dur, state=state, long_run=long_run)
                tasks[(profile, col)] = pool.submit(run, cli, doc, ov, tmp, f"{profile}-{col}")
            for seed in SEEDS:
                doc, ov = scenario(profile, "randwrite", 4096, 4, 128, 5000, 20000, seed=seed)
                tasks[(profile, "seed", seed)] = pool.submit(run, cli, doc, ov, tmp, f"{profile}-seed{seed}")
        return {k: f.result() for k, f in tasks.items()}


def fmt_iops(v):
    return f"{v / 1e6:.2f}M" if v >= 1e6 else f"{v / 1e3:.0f}K"


def cell(sim, sheet, fmt):
    if sheet is None:
        return f"{fmt(sim)} (—)"
    return f"{fmt(sim)} ({fmt(sheet)}, {100 * (sim / sheet - 1):+.1f}%)"


def table(results):
    gbs = lambda v: f"{v / 1e9:.2f} GB/s"
    us = lambda v: f"{v / 1e3:.1f} us"
    lines = ["| drive | 4K random read | 4K random write, steady | 4K random write, FOB | 128K sequential read | "
             "128K sequential write | QD1 4K read latency | QD1 4K write latency | steady write, seeds 1-5 |",
             "|---|---|---|---|---|---|---|---|---|"]
    for profile, sheet in DATASHEET.items():
        r = {col: results[(profile, col)] for col, *_ in CASES}
        iops = lambda c: r[c]["aggregate"]["iops"]
        bw = lambda c: r[c]["aggregate"]["bytes_per_s"]
        lat = lambda c: r[c]["aggregate"]["latency_ns"]["mean"]
        seeds = [results[(profile, "seed", s)]["aggregate"]["iops"] for s in SEEDS]
        cv = 100 * statistics.pstdev(seeds) / statistics.mean(seeds)
        spread = f"{fmt_iops(min(seeds))} .. {fmt_iops(max(seeds))} ({100 * (max(seeds) / min(seeds) - 1):.1f}%, CV {cv:.1f}%)"
        lines.append(f"| {profile} | {cell(iops('randread'), sheet['randread'], fmt_iops)} | "
                     f"{cell(iops('randwrite'), sheet['randwrite'], fmt_iops)} | {cell(iops('randwrite_fob'), None, fmt_iops)} | "
                     f"{cell(bw('read'), sheet['read'], gbs)} | {cell(bw('write'), sheet['write'], gbs)} | "
                     f"{cell(lat('qd1_read'), sheet['qd1'], us)} | {cell(lat('qd1_write'), None, us)} | {spread} |")
    lines.append("")
    lines.append("Simulated (datasheet, difference); — where the sources give no figure. Sources:")
    lines.append("")
    for profile, note in NOTES.items():
        wp = results[(profile, "randwrite")]["drives"][0]["device"]["write_path"]
        lines.append(f"- {profile}: {note}. Steady state: write amplification {wp['write_amplification']:.2f} "
                     f"(measured {wp['measured_write_amplification']:.2f}), flash busy with writes "
                     f"{100 * wp['flash_write_utilization']:.0f}% of which GC {100 * wp['gc_utilization']:.0f}%.")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="the nvmesim binary")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true", help="write the table into docs/drive-model.md")
    g.add_argument("--check", action="store_true", help="exit 1 if docs/drive-model.md's table differs")
    a = ap.parse_args()
    text = table(measure(a.cli))
    if not (a.write or a.check):
        sys.stdout.write(text)
        return 0
    page = PAGE.read_text()
    head, rest = page.split(BEGIN + "\n", 1)
    old, tail = rest.split(END, 1)
    if a.check:
        if old == text:
            return 0
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True), "docs/drive-model.md",
                                                   "tools/drive_validation.py"))
        print("docs/drive-model.md's validation table is not what tools/drive_validation.py gives: run it with --write")
        return 1
    PAGE.write_text(head + BEGIN + "\n" + text + END + tail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
