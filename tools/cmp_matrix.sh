#!/usr/bin/env bash
# Runs a fixed matrix of scenarios, policies, traces and replays with one nvmesim binary and
# writes every output to a folder, so that a refactor or a speed change can be shown to leave
# results byte-identical: run it with the binary before and after, then `diff -r` the folders.
# Short windows keep it to a few seconds.
#   usage: tools/cmp_matrix.sh NVMESIM_BINARY OUTDIR
#   e.g.   tools/cmp_matrix.sh build/app/nvmesim /tmp/cmp/after && diff -r /tmp/cmp/before /tmp/cmp/after
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 NVMESIM_BINARY OUTDIR" >&2
  exit 2
fi
bin=$(realpath "$1") out=$2
scenarios="$(cd "$(dirname "$0")/../scenarios" && pwd)"
mkdir -p "$out"
# Outputs and traces are named relative to OUTDIR (the replay's results name its trace's
# path), so that two folders compare equal.
cd "$out"
run() {  # output-name args...
  local name=$1
  shift
  "$bin" run "$@" -o "$name.json" -q || { echo "FAILED: $name" >&2; exit 1; }
}
for p in irq watermark rate poll coalesce threaded coalesce_adaptive measured; do
  run "default_$p" "$scenarios/default.json" --set policy.name=$p --duration-us 3000 \
    --warmup-us 500 --threads 1
done
# Published rows run with the policy their row measures (their files say irq, the baseline).
for fp in posted_msi_posted_4_drives:irq posted_msi_remappable_8_drives:irq \
    b_fifteen_drives_qd32:rate b_one_drive_qd64:rate a2_fio_libaio_qd1024:watermark; do
  f=${fp%%:*} p=${fp##*:}
  run "$f" "$scenarios/published/$f.json" --set policy.name=$p --duration-us 20000 \
    --warmup-us 500 --threads 1
  run "${f}_threads2" "$scenarios/published/$f.json" --set policy.name=$p --duration-us 20000 \
    --warmup-us 500 --threads 2
done
# Threads must not change results; traces and a replay of a command trace must not either.
run traced "$scenarios/default.json" --duration-us 2000 --warmup-us 500 \
  --trace trace.csv --threads 2
run default_long "$scenarios/default.json" --duration-us 20000 --warmup-us 2000
run b15_long "$scenarios/published/b_fifteen_drives_qd128.json" --duration-us 5000 \
  --warmup-us 20000
run ct "$scenarios/default.json" --duration-us 2000 --warmup-us 0 --command-trace ct.csv
run replay "$scenarios/default.json" --duration-us 2000 --warmup-us 0 --replay ct.csv
echo "wrote $(ls | wc -l) files to $out"
