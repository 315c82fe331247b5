#!/bin/sh
# Prepares what the VM tests boot: a Debian kernel and a busybox initramfs holding the
# NVMe and VFIO modules. Idempotent: a second run with the same kernel version does
# nothing. The test binary and test script are not part of it: run-vm.sh appends them
# as a second cpio archive at boot, so rebuilding the binary needs no new prepare.
#
# Usage: prepare.sh [CACHE_DIR]   (default: ./vm under the current directory)
# Needs: apt-get (Debian mirror), dpkg, depmod/modprobe (kmod), busybox-static, cpio, gzip.
set -eu

CACHE=${1:-$(pwd)/vm}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)

for tool in apt-get apt-cache dpkg depmod modprobe cpio gzip; do
  command -v "$tool" >/dev/null || { echo "prepare.sh: missing tool: $tool" >&2; exit 2; }
done
BUSYBOX=$(command -v busybox || true)
# The initramfs has no libc: busybox must be the static build.
if [ -z "$BUSYBOX" ] || ldd "$BUSYBOX" >/dev/null 2>&1; then
  echo "prepare.sh: need a static busybox (apt-get install busybox-static)" >&2; exit 2
fi

# The kernel version changes with security updates: resolve it, never hard-code it.
PKG=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1)
if [ -z "$PKG" ]; then
  echo "prepare.sh: apt-cache knows no linux-image-amd64; running apt-get update" >&2
  apt-get update -qq
  PKG=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1)
fi
[ -n "$PKG" ] || { echo "prepare.sh: cannot resolve the kernel package" >&2; exit 2; }
KVER=${PKG#linux-image-}

# The stamp also names the recipe of the initramfs: a cache made by an older recipe
# (other modules) is rebuilt. Bump it when the module list or /init changes.
STAMP="$KVER initramfs-2"
if [ -f "$CACHE/ready" ] && [ "$(cat "$CACHE/ready")" = "$STAMP" ]; then
  echo "prepare.sh: $CACHE already prepared for $STAMP"
  exit 0
fi
rm -f "$CACHE/ready"

# apt-get download writes into the current directory; _apt may not write there, so
# download into a world-writable temporary directory.
DL=$(mktemp -d)
trap 'rm -rf "$DL"' EXIT
chmod 777 "$DL"
(cd "$DL" && apt-get download -q "$PKG")
DEB=$(ls "$DL"/*.deb)

rm -rf "$CACHE/kroot" "$CACHE/initramfs"
dpkg -x "$DEB" "$CACHE/kroot"
depmod -b "$CACHE/kroot" "$KVER"
cp "$CACHE/kroot/boot/vmlinuz-$KVER" "$CACHE/vmlinuz"

# Modules in load order, each once. Busybox has no softdep support, and vfio needs
# vfio_iommu_type1 loaded for VFIO_SET_IOMMU: list it explicitly, before vfio-pci.
# ext4 (which also mounts the ext2 busybox's mke2fs makes): the in-use test mounts the
# namespace, and Debian builds no block filesystem into the kernel.
R="$CACHE/initramfs"
mkdir -p "$R/bin" "$R/sbin" "$R/proc" "$R/sys" "$R/dev" "$R/tmp" "$R/modules" "$R/etc"
: > "$CACHE/modules.order"
for m in nvme vfio vfio_iommu_type1 irqbypass vfio_virqfd vfio-pci-core vfio-pci ext4; do
  modprobe -d "$CACHE/kroot" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
  base=$(basename "$ko")
  cp "$ko" "$R/modules/$base"
  echo "$base" >> "$CACHE/modules.order"
done
cp "$CACHE/modules.order" "$R/modules/order"

cp "$BUSYBOX" "$R/bin/busybox"
for applet in $("$BUSYBOX" --list); do
  [ -e "$R/bin/$applet" ] || ln -s busybox "$R/bin/$applet"
done

cat > "$R/init" <<'INIT'
#!/bin/sh
# PID 1 of the test VM: load the modules, run /test.sh, report, power off.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
while read -r ko; do
  insmod "/modules/$ko" || echo "init: insmod $ko failed"
done < /modules/order
# The nvme driver probes asynchronously: wait until both controllers show up.
i=0
while [ "$(ls /sys/bus/pci/drivers/nvme 2>/dev/null | grep -c '^0000:')" -lt 1 ] && [ $i -lt 100 ]; do
  sleep 0.1; i=$((i + 1))
done
echo "NVMESIM-VM: booted $(uname -r)"
if [ -x /test.sh ]; then
  /test.sh
  rc=$?
else
  echo "init: no /test.sh"; rc=3
fi
echo "NVMESIM-VM-RESULT: rc=$rc"
sync
poweroff -f
INIT
chmod +x "$R/init"

(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > "$CACHE/base.cpio.gz"
rm -rf "$CACHE/kroot"  # 400 MB we no longer need: vmlinuz and the modules are copied
echo "$STAMP" > "$CACHE/ready"
echo "prepare.sh: prepared $CACHE for kernel $KVER ($(wc -l < "$CACHE/modules.order") modules)"
