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
