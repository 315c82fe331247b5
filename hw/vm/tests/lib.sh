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
# queue, policy parameters from $PARAMS (JSON object). It is a full simulator scenario
# (nvmesim-hw loads it with the simulator's loader): the host and drive profiles are
# required there, inline here (the VM has no profile files); the hw run ignores them.
write_scenario() {  # policy duration_us [extra job json]; DRIVE_RANGES: the drive profile's ranges
  cat > /tmp/scenario.json <<JSON
{
  "name": "vm smoke: $1",
  "seed": 7,
  "duration_us": $2,
  "warmup_us": 20000,
  "queue_depth": 64,
  "host": {"name": "qemu-vm", "cores": 2},
  "drives": [{"name": "nvme0", "profile": {"name": "qemu-nvme",
              "read": {"dist": "constant", "mean_ns": 100000},
              "write": {"dist": "constant", "mean_ns": 100000}${DRIVE_RANGES:+, \"ranges\": $DRIVE_RANGES}}}],
  "policy": {"name": "$1", "params": ${PARAMS:-{\}}},
  "jobs": [{"name": "vm", "rw": "randread", "bs": "4k", "iodepth": ${IODEPTH:-8}, "numjobs": 1 ${3:-}}]
}
JSON
}

# The dotted paths of every key of a results file as nvmesim writes it (2-space
# indent, one key per line): aggregate.latency_ns.p99, queues.0.counters, ...
json_paths() {
  awk '
  {
    match($0, /^ */); d = RLENGTH / 2; s = substr($0, RLENGTH + 1)
    if (s ~ /^"[^"]*": /) {
      k = s; sub(/^"/, "", k); sub(/": .*$/, "", k); path[d] = k
      p = path[1]; for (i = 2; i <= d; i++) p = p "." path[i]
      print p
      rest = s; sub(/^"[^"]*": /, "", rest)
      if (rest == "[") idx[d + 1] = -1
    } else if (s == "{" || s == "[") {
      idx[d]++; path[d] = idx[d]
    }
  }' "$1"
}

# Fails unless the results file has every one of the given keys.
expect_keys() {  # file key...
  f=$1; shift
  json_paths "$f" > /tmp/paths.txt
  for k in "$@"; do
    grep -qxF "$k" /tmp/paths.txt || fail "$f lacks $k"
  done
}
