#!/bin/sh
# SIGINT mid-run: stop submitting, finish inflight, shut the controller down, exit 130;
# the device is then usable again.
. /lib.sh
bind_vfio
write_scenario irq 30000000
nvmesim-hw run --device $DEV_VFIO /tmp/scenario.json -o /tmp/results.json > /tmp/run.txt 2>&1 &
pid=$!
sleep 3
kill -INT $pid
wait $pid
rc=$?
cat /tmp/run.txt
[ "$rc" -eq 130 ] || fail "run exited $rc after SIGINT, expected 130"
grep -q "controller shut down cleanly" /tmp/run.txt || fail "no clean-shutdown message"
grep -q '"interrupted": true' /tmp/results.json || fail "results do not say interrupted"
expect_rc 0 nvmesim-hw identify --device $DEV_VFIO
echo "PASS: sigint"
