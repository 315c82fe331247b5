# Helpers for the scripts run inside the test VM (busybox sh).
DEV_VFIO=0000:00:04.0   # bound to vfio-pci by the tests
DEV_NVME=0000:00:05.0   # stays on the kernel nvme driver

fail() { echo "FAIL: $*"; exit 1; }

# Prints a file between markers so run-vm.sh --out can extract it.
emit_file() {
  echo "NVMESIM-FILE-BEGIN $(basename "$1")"
  cat "$1"
  echo "NVMESIM-FILE-END"
}

bind_vfio() {
  nvmesim-hw bind "$DEV_VFIO" || fail "bind $DEV_VFIO"
}

[ -f /env.sh ] && . /env.sh

# Runs a command, shows its output, and fails the test unless it exits with `want`.
expect_rc() {
  want=$1; shift
  "$@" > /tmp/out.txt 2>&1
  rc=$?
  cat /tmp/out.txt
  [ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want"
}

expect_output() {
  grep -q -- "$1" /tmp/out.txt || fail "output lacks '$1'"
}

driver_of() { basename "$(readlink "/sys/bus/pci/devices/$1/driver")" 2>/dev/null; }

# A short scenario for a policy: random 4 KiB reads at depth $IODEPTH (8) on one
# queue, policy parameters from $PARAMS (JSON object).
write_scenario() {  # policy duration_us [extra job json]
  cat > /tmp/scenario.json <<JSON
{
  "name": "vm smoke: $1",
  "seed": 7,
  "duration_us": $2,
  "warmup_us": 20000,
  "queue_depth": 64,
  "policy": {"name": "$1", "params": ${PARAMS:-{\}}},
  "jobs": [{"name": "vm", "rw": "randread", "bs": "4k", "iodepth": ${IODEPTH:-8}, "numjobs": 1 ${3:-}}]
}
JSON
}
