#!/usr/bin/python3
"""A stand-in for `nvmesim-hw run` in the A/B tests: runs the scenario in the simulator
and writes it in the hw results layout (docs/results.md, "hw runs"): "source": "hw", a
"hw" section, no "limits", drives' device figures reduced to "commands". Each call is
appended to $FAKE_HW_LOG (argv as JSON) so a test can check the A B A B order.

Only the layout is faked here, not a drive: nothing of this runs on hardware.
"""

import json
import os
import sys

import nvmesim


def main(argv):
    if not argv or argv[0] != "run":
        sys.stderr.write("fake nvmesim-hw: only 'run'\n")
        return 2
    args = argv[1:]
    device = args[args.index("--device") + 1]
    seed = int(args[args.index("--seed") + 1])
    out = args[args.index("-o") + 1]
    positional = [a for i, a in enumerate(args)
                  if not a.startswith("-") and args[i - 1] not in ("--device", "--seed", "-o")]
    scenario = positional[0]
    with open(os.environ["FAKE_HW_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(argv) + "\n")
    if os.environ.get("FAKE_HW_FAIL_DEVICE") == device:
        sys.stderr.write("nvmesim-hw: controller fatal status (CSTS.CFS)\n")
        return 4
    data = nvmesim.run(scenario, seed=seed).data
    data["source"] = "hw"
    data.pop("limits", None)
    for drive in data["drives"]:
        drive["device"] = {"commands": drive["device"]["commands"]}
    job = data["scenario"]["jobs"][0]
    data["hw"] = {"job": {"index": 0, "of": len(data["scenario"]["jobs"]), "name": job["name"]},
                  "interrupted": False}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(data, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
