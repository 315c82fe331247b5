#!/bin/sh
# run $POLICY on a short random-read workload; check results and trace.
. /lib.sh
[ -n "$POLICY" ] || fail "POLICY not set"
bind_vfio
write_scenario "$POLICY" 300000
expect_rc 0 nvmesim-hw run --device $DEV_VFIO /tmp/scenario.json -o /tmp/results.json --trace /tmp/trace.csv
expect_output "done: "
# The results contract (docs/results.md): the simulator's layout, marked as a hw run.
expect_keys /tmp/results.json format source seed scenario window_ns aggregate.iops aggregate.latency_ns.p99 \
  aggregate.latency_cdf aggregate.interrupts.total drives.0.device.commands queues.0.counters \
  queues.0.counters.completions queues.0.mode_timeline queues.0.final_mode jobs.0.latency_ns.p50 \
  cores.0.time_ns.app hw.interrupted
grep -q '"format": "nvmesim-results/1"' /tmp/results.json || fail "results format"
grep -q '"source": "hw"' /tmp/results.json || fail "results lack source hw"
grep -q "\"name\": \"$POLICY\"" /tmp/results.json || fail "results lack the policy name"
ios=$(grep '^    "ios": ' /tmp/results.json | head -n1 | tr -dc 0-9)
[ "${ios:-0}" -gt 10 ] || fail "aggregate.ios is ${ios:-missing}"
head -n1 /tmp/trace.csv | grep -q '^kind,t_ns,queue,cid,op' || fail "trace header"
cmds=$(grep -c '^cmd,' /tmp/trace.csv)
[ "$cmds" -gt 10 ] || fail "only $cmds commands traced"
# Every traced command succeeded and was consumed by some context.
if grep '^cmd,' /tmp/trace.csv | awk -F, '$14 != 0 || $13 == "" { bad++ } END { exit bad ? 0 : 1 }'; then
  fail "trace has failed or unattributed commands"
fi
# A policy that must switch modes in this workload (EXPECT_MODE=1) shows it in the trace.
if [ "${EXPECT_MODE:-0}" = 1 ]; then
  modes=$(grep -c '^mode,' /tmp/trace.csv)
  [ "$modes" -gt 0 ] || fail "no mode change traced"
  grep '^mode,' /tmp/trace.csv | head -n 4
fi
emit_file /tmp/results.json
# A profile value outside the range its profile documents: the hw run's results warn, as
# a simulated run's do (once, on the irq run).
if [ "$POLICY" = irq ]; then
  DRIVE_RANGES='{"/read/mean_ns": [60000, 90000]}' write_scenario irq 50000
  expect_rc 0 nvmesim-hw run --device $DEV_VFIO /tmp/scenario.json -o /tmp/ranged.json
  grep -q '/drives/0/profile/read/mean_ns = 100000 is outside the physical range its profile documents, \[60000, 90000\]' \
    /tmp/ranged.json || { cat /tmp/ranged.json; fail "results lack the out-of-range warning"; }
fi
head -n 20 /tmp/trace.csv
echo "PASS: policy $POLICY ($cmds commands traced)"
