#!/bin/sh
# `--bind` gives the device back to nvme on every way out: a normal end, an error
# after the bind, SIGINT, a fatal signal (the handler restores before the process
# dies, so nvme is back the moment it is reaped) and SIGKILL (the guardian restores
# once the runner is gone).
. /lib.sh
[ "$(driver_of $DEV_VFIO)" = nvme ] || fail "expected $DEV_VFIO on nvme at boot"
on_nvme() { [ "$(driver_of $DEV_VFIO)" = nvme ] || fail "$1: $DEV_VFIO is on '$(driver_of $DEV_VFIO)', not nvme"; }

# Normal end.
expect_rc 0 nvmesim-hw identify --bind --device $DEV_VFIO
expect_output "bound $DEV_VFIO to vfio-pci for this command (was: nvme)"
expect_output "gave $DEV_VFIO back to nvme"
on_nvme "after identify --bind"

# An error after the bind: the range ends past the 131072-block namespace.
write_scenario irq 100000
expect_rc 3 nvmesim-hw run --bind --device $DEV_VFIO /tmp/scenario.json --allow-write 131000:1000
expect_output "ends past the namespace"
on_nvme "after a refused run"

# A long run, stopped by a signal after 3 s; prints its exit code.
write_scenario irq 60000000
run_and_signal() {  # signal
  nvmesim-hw run --bind --device $DEV_VFIO /tmp/scenario.json -o /tmp/results.json > /tmp/run.txt 2>&1 &
  pid=$!
  sleep 3
  [ "$(driver_of $DEV_VFIO)" = vfio-pci ] || { cat /tmp/run.txt; fail "not on vfio-pci during the run"; }
  kill -$1 $pid
  wait $pid
  rc=$?
  cat /tmp/run.txt
}

run_and_signal INT
[ "$rc" -eq 130 ] || fail "SIGINT: exit $rc, expected 130"
grep -q "gave $DEV_VFIO back to nvme" /tmp/run.txt || fail "SIGINT: no restore message"
on_nvme "after SIGINT"

run_and_signal SEGV
[ "$rc" -eq 139 ] || fail "SIGSEGV: exit $rc, expected 139 (killed by SIGSEGV)"
on_nvme "right after death by SIGSEGV"

run_and_signal KILL
[ "$rc" -eq 137 ] || fail "SIGKILL: exit $rc, expected 137"
# The guardian acts once the runner has released the device: wait for it (bounded).
i=0
while [ "$(driver_of $DEV_VFIO)" != nvme ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
cat /tmp/run.txt
on_nvme "after SIGKILL"
grep -q "guardian gave the device back" /tmp/run.txt || fail "SIGKILL: the guardian did not say it restored"

# The kernel driver works again: its namespace comes back.
i=0
while ! ls /sys/bus/pci/devices/$DEV_VFIO/nvme/*/ 2>/dev/null | grep -q '^nvme[0-9]*n1$' && [ $i -lt 50 ]; do
  sleep 0.2; i=$((i + 1))
done
ls /sys/bus/pci/devices/$DEV_VFIO/nvme/*/ | grep -q '^nvme[0-9]*n1$' || fail "no namespace after the restores"
echo "PASS: restore"
