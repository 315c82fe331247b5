#!/bin/sh
# nvmesim-hw's command line without a device: every bad option value exits 2 with a
# message that starts with the option's name, before any device is looked at (the PCI
# address 0000:00:00.0 is never opened: parsing fails first); --help exits 0.
# Usage: cli_test.sh NVMESIM_HW SCENARIO
set -u
HW=$1 SC=$2
failures=0

expect() {  # want_rc want_message_prefix args...
  want=$1 prefix=$2; shift 2
  out=$("$HW" "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: nvmesim-hw $* exited $rc, expected $want: $out"; failures=$((failures + 1)); return
  fi
  case "$out" in
    "$prefix"*) echo "ok: nvmesim-hw $* -> $rc" ;;
    *) echo "FAIL: nvmesim-hw $*: output does not start with '$prefix': $out"; failures=$((failures + 1)) ;;
  esac
}

run() { expect "$1" "$2" run "$SC" --device 0000:00:00.0 "$3" "$4"; }

# The case, and every bad form of a range.
for bad in -8:16 +8:16 8:-16 0x10:16 8:16k " 8:16" 8: :16 816 8:0 8:16:4 \
           18446744073709551616:1 18446744073709551615:1 18446744073709551608:16; do
  run 2 "nvmesim-hw: --allow-write: " --allow-write "$bad"
  expect 2 "nvmesim-hw: --allow-write: " rwtest --device 0000:00:00.0 --allow-write "$bad"
done
for bad in 99999999999999999999 -1 0 10x 0x10 1e3 "" 86400001; do
  run 2 "nvmesim-hw: --io-timeout-ms: " --io-timeout-ms "$bad"
done
for bad in -1 18446744073709551616 7x 0x7; do
  run 2 "nvmesim-hw: --seed: " --seed "$bad"
done
for bad in 0 511 4k -4096 1073741825 99999999999999999999; do
  expect 2 "nvmesim-hw: --bs: " rwtest --device 0000:00:00.0 --allow-write 0:8 --bs "$bad"
done
expect 2 "nvmesim-hw: --device: " run "$SC" --device 00:00.9
expect 2 "nvmesim-hw: --device: " identify --device nvme0
expect 2 "nvmesim-hw: " run "$SC"                       # --device is required
expect 2 "nvmesim-hw: " bind                            # the address is required
expect 2 "nvmesim-hw: " frobnicate
expect 2 "nvmesim-hw: " run "$SC" --device 0000:00:00.0 --no-such-option
# An address with no device behind it (domain ffff: none on any machine this runs on):
# exit 2 naming the option, not 1.
expect 2 "nvmesim-hw: --device: no PCI device ffff:ff:1f.7" identify --device ffff:ff:1f.7
expect 2 "nvmesim-hw: --device: no PCI device ffff:ff:1f.7" rwtest --device ffff:ff:1f.7 --allow-write 0:8
expect 2 "nvmesim-hw: --device: no PCI device ffff:ff:1f.7" run "$SC" --device ffff:ff:1f.7
expect 2 "nvmesim-hw: --device: no PCI device ffff:ff:1f.7" run "$SC" --device ffff:ff:1f.7 --bind
expect 2 "nvmesim-hw: bdf: no PCI device ffff:ff:1f.7" bind ffff:ff:1f.7
expect 2 "nvmesim-hw: bdf: no PCI device ffff:ff:1f.7" unbind ffff:ff:1f.7
# A scenario that does not load: exit 2 with its JSON path, also before the device.
expect 2 "nvmesim-hw: /jobs/0/iodepth" run "$SC" --device 0000:00:00.0 --set jobs.0.iodepth=0
expect 0 "nvmesim-hw: run nvmesim" --help
expect 0 "the scenario's first job" run --help

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "PASS: cli"
