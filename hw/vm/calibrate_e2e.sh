#!/bin/sh
# Calibration end to end on the VM's emulated NVMe drive (issue 11, "End to end in the
# VM"): hw runs at four queue depths inside the VM (tests/calibration_runs.sh), then on
# the host `nvmesim calibrate` fits the drive's read service time (mean, sigma) to two,
# `nvmesim run` simulates the two held out with the fitted profile, and `nvmesim compare`
# sets those beside their measurements, and one hw command trace is replayed. A check of the mechanism, not of performance:
# every step must succeed and the report's statistics must be present and finite; how
# close the numbers come is written down in docs/calibrating.md, "End to end in the VM", not asserted.
#
# Usage: calibrate_e2e.sh --cache DIR --binary NVMESIM_HW --nvmesim NVMESIM --work DIR
# Exit codes: 0 pass, 1 fail, 77 skip (no QEMU), as run-vm.sh.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE= BINARY= NVMESIM= WORK=
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) CACHE=$2; shift 2 ;;
    --binary) BINARY=$2; shift 2 ;;
    --nvmesim) NVMESIM=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    *) echo "calibrate_e2e.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$CACHE" ] && [ -n "$BINARY" ] && [ -n "$NVMESIM" ] && [ -n "$WORK" ] || { sed -n '2,13p' "$0" >&2; exit 2; }
PY=/usr/bin/python3
fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$WORK"
mkdir -p "$WORK/hw"
WORK=$(cd "$WORK" && pwd)

# 1. The measurements: one VM boot, four hw runs (results + command traces).
set +e
sh "$HERE/run-vm.sh" --cache "$CACHE" --binary "$BINARY" --test "$HERE/tests/calibration_runs.sh" \
  --timeout 300 --out "$WORK/hw" --env "DEPTHS=1 2 4 8" --env DURATION_US=300000
rc=$?
set -e
[ $rc -eq 0 ] || exit $rc
for qd in 1 2 4 8; do
  [ -s "$WORK/hw/results-qd$qd.json" ] || fail "the VM wrote no results-qd$qd.json"
done

# 2. The fit: the drive's read service time (lognormal mean and sigma), to QD1 and QD4
# (IOPS, p50, p99); QD2 and QD8 held out. The guest runs
# under TCG, so its timing is noisy: 5% per metric.
cat > "$WORK/spec.json" <<JSON
{"format": "nvmesim-calibrate/1", "name": "vm: QEMU NVMe under TCG",
 "seed": 1, "starts": 2, "noise": 0.05, "max_evaluations": 40, "neighbourhood": 8,
 "parameters": [{"path": "/drives/*/profile/read/mean_ns", "min": 2000, "max": 5000000},
                {"path": "/drives/*/profile/read/sigma", "min": 0.1, "max": 3}],
 "runs": [{"name": "qd1", "measured": "hw/results-qd1.json"},
          {"name": "qd4", "measured": "hw/results-qd4.json"},
          {"name": "qd2", "role": "holdout", "measured": "hw/results-qd2.json"},
          {"name": "qd8", "role": "holdout", "measured": "hw/results-qd8.json"}]}
JSON
"$NVMESIM" calibrate "$WORK/spec.json" -o "$WORK/fitted-profile.json" --report "$WORK/calibration" \
  --date 2026-01-01 || fail "nvmesim calibrate exited $?"

# 3. The held-out runs simulated with the fitted profile (the hw run's own scenario, the
# calibration's seed), then compared with their measurements.
for qd in 2 8; do
  $PY -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["scenario"], open(sys.argv[2], "w"))' \
    "$WORK/hw/results-qd$qd.json" "$WORK/scenario-qd$qd.json"
  "$NVMESIM" run "$WORK/scenario-qd$qd.json" --set "/drives/0/profile=$WORK/fitted-profile.json" --seed 1 \
    -o "$WORK/sim-qd$qd.json" > /dev/null || fail "nvmesim run of held-out qd$qd exited $?"
done
cat > "$WORK/compare.json" <<JSON
{"format": "nvmesim-compare/1", "name": "vm calibration, held out",
 "pairs": [{"name": "qd2", "measured": "hw/results-qd2.json", "simulated": "sim-qd2.json"},
           {"name": "qd8", "measured": "hw/results-qd8.json", "simulated": "sim-qd8.json"}]}
JSON
"$NVMESIM" compare "$WORK/compare.json" -o "$WORK/compare" || fail "nvmesim compare exited $?"

# A hw command trace drives the simulator (docs/trace-format.md, "Replay"): same layout.
"$NVMESIM" run "$WORK/scenario-qd8.json" --replay "$WORK/hw/trace-qd8.csv" --replay-service --seed 1 \
  -o "$WORK/replay-qd8.json" > /dev/null || fail "the replay of hw/trace-qd8.csv exited $?"

# 4. What the pipeline must have produced.
$PY - "$WORK" <<'PY'
import json, math, sys
work = sys.argv[1]
def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)
rep = json.load(open(f"{work}/calibration/report.json"))
fitted = json.load(open(f"{work}/fitted-profile.json"))
for p in rep["parameters"]:
    if not (math.isfinite(p["value"]) and p["std_error"] is not None and math.isfinite(p["std_error"])):
        fail(f"{p['path']} is not fitted: {p}")
    key = p["path"].split("/profile/")[1]
    node = fitted
    for k in key.split("/"):
        node = node[k]
    if node != p["value"] or key.replace("/", ".") not in fitted.get("sources", {}):
        fail(f"the fitted profile does not carry {key}'s fitted value and its source")
# The held-out simulations are the calibration's own predictions (same scenario, seed, value).
predicted = {r["name"]: {m["metric"]: m["simulated"] for m in r["metrics"]} for r in rep["runs"]}
summary = json.load(open(f"{work}/compare/summary.json"))
everything = summary["stats"]["all"]
for metric in ("iops", "lat_p50", "lat_p99"):
    st = everything.get(metric)
    if not st or st["n"] != 2:
        fail(f"compare has no {metric} for both held-out points: {st}")
    for stat in ("mean_err", "mape", "max_abs_err", "within_10pct"):
        if not isinstance(st[stat], (int, float)) or not math.isfinite(st[stat]):
            fail(f"{metric}.{stat} is {st[stat]!r}")
    print(f"held out {metric}: MAPE {st['mape']:.1f}%, mean error {st['mean_err']:+.1f}%, "
          f"within 10% {st['within_10pct']:.0f}%")
ks = summary["ks"]["all"]
if ks["n"] != 2 or not all(math.isfinite(ks[k]) and 0 <= ks[k] <= 1 for k in ("mean", "max")):
    fail(f"compare's latency-CDF KS distances: {ks}")
print(f"held out KS: mean {ks['mean']:.3f}, max {ks['max']:.3f}")
for p in rep["parameters"]:
    print(f"fitted {p['path']}: {p['value']:.4g} +- {p['std_error']:.3g}, identifiable {p['identifiable']}")
for r in rep["runs"]:
    print("  " + r["name"], r["role"], ", ".join(
        f"{m['metric']} {m['measured']:.4g} -> {m['simulated']:.4g} ({100 * m['error']:+.1f}%)" for m in r["metrics"]))
for qd in (2, 8):
    sim = json.load(open(f"{work}/sim-qd{qd}.json"))["aggregate"]
    if abs(sim["iops"] / predicted[f"qd{qd}"]["iops"] - 1) > 1e-9:
        fail(f"qd{qd}: nvmesim run gives {sim['iops']} IOPS, calibrate predicted {predicted[f'qd{qd}']['iops']}")
PY
$PY - "$WORK" <<'PY'
import json, sys
replay = json.load(open(f"{sys.argv[1]}/replay-qd8.json"))["replay"]
print("replay of the hw trace:", {k: replay.get(k) for k in ("commands", "matched", "inflight", "service_source", "drift")})
if replay["commands"] < 100 or replay["matched"] != replay["commands"] - replay["inflight"] - replay["skipped"]:
    print("FAIL: the hw trace did not replay command for command")
    sys.exit(1)
PY
echo "PASS: calibrate -> compare on the VM's drive"
