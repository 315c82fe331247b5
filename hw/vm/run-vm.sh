#!/bin/sh
# Boots the test VM (QEMU, TCG, q35 + virtual Intel IOMMU, two emulated NVMe
# controllers at 0000:00:04.0 and 0000:00:05.0, both first bound to the nvme driver),
# runs one test script inside it, prints its serial console and exits with the
# script's exit code.
#
# Usage: run-vm.sh --cache DIR --binary NVMESIM_HW --test SCRIPT [--timeout SEC]
#                  [--out DIR] [--ioqpairs N] [--env NAME=VALUE]...
#   --cache    directory prepared by prepare.sh
#   --binary   the static nvmesim-hw binary, installed as /bin/nvmesim-hw
#   --test     shell script run as /test.sh; hw/vm/tests/lib.sh comes along as /lib.sh
#   --out      where files the test prints between NVMESIM-FILE-BEGIN/END markers go
#   --env      a variable the test script sees (via /env.sh, sourced by /lib.sh)
# Exit codes: the test's own; 77 when QEMU cannot run at all; 124 on timeout.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE= BINARY= TEST= TIMEOUT=240 OUT= IOQPAIRS=4 ENVS=
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) CACHE=$2; shift 2 ;;
    --binary) BINARY=$2; shift 2 ;;
    --test) TEST=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --ioqpairs) IOQPAIRS=$2; shift 2 ;;
    --env) ENVS="$ENVS$2
"; shift 2 ;;
    *) echo "run-vm.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$CACHE" ] && [ -n "$BINARY" ] && [ -n "$TEST" ] || { sed -n '2,16p' "$0" >&2; exit 2; }

QEMU=$(command -v qemu-system-x86_64 || true)
if [ -z "$QEMU" ]; then
  echo "SKIP: qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"; exit 77
fi
if ! "$QEMU" -accel help 2>/dev/null | grep -q tcg; then
  echo "SKIP: this QEMU has no TCG accelerator"; exit 77
fi
[ -f "$CACHE/ready" ] || { echo "run-vm.sh: $CACHE is not prepared: run hw/vm/prepare.sh $CACHE" >&2; exit 2; }
[ -x "$BINARY" ] || { echo "run-vm.sh: no binary $BINARY" >&2; exit 2; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# A second cpio archive appended to the prepared one: the kernel unpacks both.
mkdir -p "$WORK/extra/bin"
cp "$BINARY" "$WORK/extra/bin/nvmesim-hw"
# Debug info only slows the initramfs down.
command -v strip >/dev/null && strip "$WORK/extra/bin/nvmesim-hw"
# Single quotes: values may hold JSON (but no single quote).
printf '%s' "$ENVS" | sed -n "s/^\([A-Za-z_][A-Za-z0-9_]*\)=\(.*\)$/export \1='\2'/p" > "$WORK/extra/env.sh"
cp "$TEST" "$WORK/extra/test.sh"
cp "$HERE/tests/lib.sh" "$WORK/extra/lib.sh"
chmod +x "$WORK/extra/test.sh" "$WORK/extra/bin/nvmesim-hw"
(cd "$WORK/extra" && find . | cpio -o -H newc --quiet | gzip -1) > "$WORK/extra.cpio.gz"
cat "$CACHE/base.cpio.gz" "$WORK/extra.cpio.gz" > "$WORK/initrd"

# Small sparse images: 64 MiB each (131072 blocks of 512 B).
truncate -s 64M "$WORK/nvme0.img" "$WORK/nvme1.img"

LOG="$WORK/serial.log"
# no_timer_check: at boot the guest checks that its timer interrupt arrives through the
# remapped IO-APIC within a few emulated ticks; on a busy host TCG misses that window and
# the kernel panics ("timer doesn't work through Interrupt-remapped IO-APIC", seen in a CI
# run on 2 loaded cores). The check says nothing about the hw tests; skipping it is the
# usual setting for emulated guests.
set +e
timeout -k 10 "$TIMEOUT" "$QEMU" \
  -accel tcg -machine q35,kernel-irqchip=split -cpu max -smp 2 -m 768 \
  -device intel-iommu,intremap=on,caching-mode=on \
  -kernel "$CACHE/vmlinuz" -initrd "$WORK/initrd" \
  -append "console=ttyS0 intel_iommu=on iommu=pt no_timer_check quiet loglevel=4 panic=-1" \
  -display none -monitor none -no-reboot -serial "file:$LOG" \
  -drive "file=$WORK/nvme0.img,if=none,id=d0,format=raw" \
  -device "nvme,serial=nvmesim0,drive=d0,max_ioqpairs=$IOQPAIRS,msix_qsize=$((IOQPAIRS + 1)),addr=0x4" \
  -drive "file=$WORK/nvme1.img,if=none,id=d1,format=raw" \
  -device "nvme,serial=nvmesim1,drive=d1,max_ioqpairs=$IOQPAIRS,msix_qsize=$((IOQPAIRS + 1)),addr=0x5" \
  </dev/null
qrc=$?
set -e

tr -d '\r' < "$LOG" > "$WORK/console.txt" || true
cat "$WORK/console.txt"

if [ -n "$OUT" ]; then
  mkdir -p "$OUT"
  awk -v out="$OUT" '
    /^NVMESIM-FILE-BEGIN / { f = out "/" $2; printf "" > f; next }
    /^NVMESIM-FILE-END/ { if (f) close(f); f = ""; next }
    f { print >> f }' "$WORK/console.txt"
fi

if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
  echo "run-vm.sh: TIMEOUT after ${TIMEOUT}s" >&2; exit 124
fi
rc=$(sed -n 's/^NVMESIM-VM-RESULT: rc=\([0-9]*\).*/\1/p' "$WORK/console.txt" | tail -n1)
if [ -z "$rc" ]; then
  echo "run-vm.sh: the VM ended without a result (qemu exit $qrc)" >&2; exit 1
fi
exit "$rc"
