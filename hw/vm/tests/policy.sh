#!/bin/sh
# run $POLICY on a short random-read workload; check results and trace.
. /lib.sh
[ -n "$POLICY" ] || fail "POLICY not set"
bind_vfio
write_scenario "$POLICY" 300000
expect_rc 0 nvmesim-hw run --device $DEV_VFIO /tmp/scenario.json -o /tmp/results.json --trace /tmp/trace.csv
expect_output "done: "
grep -q '"iops"' /tmp/results.json || fail "results lack iops"
grep -q "\"name\": \"$POLICY\"" /tmp/results.json || fail "results lack the policy name"
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
head -n 20 /tmp/trace.csv
echo "PASS: policy $POLICY ($cmds commands traced)"
