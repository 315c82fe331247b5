"""Small cuts of the shipped policy A matrix for the tests: one drive, io_uring, 4K
randread and 128K read at the depths a test needs."""

import json
from pathlib import Path

SHIPPED = Path(__file__).resolve().parents[2] / "scenarios" / "matrices" / "policy_a_eval.json"


def policy_a_slice(depths_4k, depths_128k, seeds, duration_us, warmup_us):
    """The shipped matrix's base and arms with one drive, io_uring, 4K randread at
    `depths_4k` and 128K read at `depths_128k`, `seeds` seeds per arm."""
    doc = json.loads(SHIPPED.read_text())
    doc.update(seeds=seeds, duration_us=duration_us, warmup_us=warmup_us)
    doc["axes"] = [{"name": "drives", "drive_count": [1]},
                   {"name": "ioengine", "path": "/jobs/*/ioengine", "values": ["io_uring"]}]
    doc["blocks"] = [
        {"name": "4K random", "axes": [
            {"name": "workload", "values": [
                {"label": "4K randread", "set": {"/jobs/*/rw": "randread", "/jobs/*/bs": "4k"}}]},
            {"name": "iodepth", "path": "/jobs/*/iodepth", "values": list(depths_4k)}]},
        {"name": "128K sequential", "axes": [
            {"name": "workload", "values": [
                {"label": "128K read", "set": {"/jobs/*/rw": "read", "/jobs/*/bs": "128k"}}]},
            {"name": "iodepth", "path": "/jobs/*/iodepth", "values": list(depths_128k)}]}]
    return doc
