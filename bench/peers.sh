#!/usr/bin/env bash
# nvmesim against a bare hand-written DES of the same closed-loop model, in one run:
# ../shared/bench/peers/bare (built here from its source, with its own flags) and
# nvmesim on ../shared/bench/peers/peers_model.json (D=4 drives, J=4 jobs each, QD 128,
# 0.2 s simulated). Prints each one's CPU time per simulated I/O and the ratio
# (nvmesim's simulated I/Os per CPU-second / the bare loop's: >= 1.0 is as fast).
#
# Usage: bench/peers.sh [NVMESIM] [REPEATS] [SIM_BENCHMARK]   (default build/app/nvmesim,
#        3 repeats: the minimum CPU time of each counts; this machine is noisy). With
#        SIM_BENCHMARK (build/bench/sim_benchmark), its cases follow in the same output:
#        the default scenario, one drive QD32, the polled default, the peers' model and
#        the large hosts (fifteen and sixteen drives), each with simulated I/Os per
#        CPU-second (the large hosts also per wall-second, and peak RSS) and bytes per
#        in-flight I/O, then the start-up cases (building a System, loading a scenario).
# Exits 77 when ../shared/bench/peers is not there (it is the workplace's, not the repo's).
set -euo pipefail
cd "$(dirname "$0")/.."
NVMESIM=${1:-build/app/nvmesim}
REPEATS=${2:-3}
SIM_BENCHMARK=${3:-}
PEERS=${NVMESIM_PEERS:-../shared/bench/peers}
if [ ! -f "$PEERS/bare/nvme_bare.cpp" ] || [ ! -f "$PEERS/peers_model.json" ]; then
  echo "SKIP: no peer models at $PEERS"
  exit 77
fi
[ -x "$NVMESIM" ] || { echo "bench/peers.sh: no $NVMESIM (build first)" >&2; exit 2; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The peer's source is read-only here: build it in a scratch directory, with the flags its
# run.sh uses.
g++ -std=c++20 -O2 -march=x86-64-v2 -o "$WORK/nvme_bare" "$PEERS/bare/nvme_bare.cpp"

# CPU seconds (user + sys) of one command (getrusage of the child); its stdout goes to
# $WORK/out.
cpu_of() {
  /usr/bin/python3 -c '
import resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{r.ru_utime + r.ru_stime:.6f}")' "$WORK/out" "$@"
}

best_bare="" best_sim=""
for _ in $(seq "$REPEATS"); do
  c=$(cpu_of "$WORK/nvme_bare" 4 4 128 0.2 1)
  bare_ios=$(tail -n1 "$WORK/out" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["completed"])')
  best_bare=$(/usr/bin/python3 -c "print(min(x for x in [$c, ${best_bare:-1e9}]))")
  # No warm-up: the bare loop counts every completion of its 0.2 s.
  c=$(cpu_of "$NVMESIM" run "$PEERS/peers_model.json" --set warmup_us=0 -q -o "$WORK/results.json")
  sim_ios=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["aggregate"]["ios"])' "$WORK/results.json")
  best_sim=$(/usr/bin/python3 -c "print(min(x for x in [$c, ${best_sim:-1e9}]))")
done

/usr/bin/python3 - "$best_bare" "$bare_ios" "$best_sim" "$sim_ios" <<'EOF'
import sys
bare_cpu, bare_ios, sim_cpu, sim_ios = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
bare_rate, sim_rate = bare_ios / bare_cpu, sim_ios / sim_cpu
print(f"bare loop: {bare_ios} simulated I/Os, {bare_cpu:.3f} CPU-s, {bare_rate/1e6:.2f} M I/Os per CPU-s, "
      f"{bare_cpu/bare_ios*1e9:.0f} ns per I/O")
print(f"nvmesim:   {sim_ios} simulated I/Os, {sim_cpu:.3f} CPU-s, {sim_rate/1e6:.2f} M I/Os per CPU-s, "
      f"{sim_cpu/sim_ios*1e9:.0f} ns per I/O")
print(f"ratio (nvmesim / bare, simulated I/Os per CPU-second): {sim_rate/bare_rate:.2f}x")
EOF
if [ -n "$SIM_BENCHMARK" ]; then
  "$SIM_BENCHMARK" --benchmark_counters_tabular=true
fi
