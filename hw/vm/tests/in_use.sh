#!/bin/sh
# A controller whose namespace is in use is refused by `bind` and by `run --bind`, with
# the use named, and stays on nvme: a mounted filesystem (also through another device
# node than /dev/nvme0n1, which a check by name misses), swap, a process holding the
# raw block device open. Once nothing uses it, `bind` takes it.
. /lib.sh
[ "$(driver_of $DEV_VFIO)" = nvme ] || fail "expected $DEV_VFIO on nvme at boot"
blk=$(ls /sys/bus/pci/devices/$DEV_VFIO/nvme/*/ | grep -m1 '^nvme[0-9]*n1$')
[ -n "$blk" ] || fail "no namespace block device of $DEV_VFIO"
write_scenario irq 100000

expect_refused() {  # what the refusal must say
  expect_rc 3 nvmesim-hw bind $DEV_VFIO
  expect_output "$1"
  expect_rc 3 nvmesim-hw run --bind --device $DEV_VFIO /tmp/scenario.json
  expect_output "$1"
  [ "$(driver_of $DEV_VFIO)" = nvme ] || fail "the refused device changed driver"
}

mkdir -p /mnt
mke2fs -q /dev/$blk || fail "mke2fs"
mount -t ext4 /dev/$blk /mnt || fail "mount"
expect_refused "/dev/$blk is mounted on /mnt"
umount /mnt

# The same filesystem through a node of another name: /proc/mounts never says $blk.
mknod /tmp/alias b $(tr ':' ' ' < /sys/class/block/$blk/dev)
mount -t ext4 /tmp/alias /mnt || fail "mount through /tmp/alias"
grep -q "/dev/$blk" /proc/mounts && fail "the test wants a mount not listed by name"
expect_refused "/dev/$blk is mounted on /mnt"
umount /mnt

mkswap /dev/$blk > /dev/null || fail "mkswap"
swapon /dev/$blk || fail "swapon"
expect_refused "/dev/$blk is used as swap"
swapoff /dev/$blk

sleep 600 < /dev/$blk &
holder=$!
expect_refused "/dev/$blk is open in process $holder"
kill $holder
wait $holder 2>/dev/null

expect_rc 0 nvmesim-hw bind $DEV_VFIO
[ "$(driver_of $DEV_VFIO)" = vfio-pci ] || fail "bind of the unused device did not bind vfio-pci"
expect_rc 0 nvmesim-hw unbind $DEV_VFIO
[ "$(driver_of $DEV_VFIO)" = nvme ] || fail "unbind did not restore nvme"
echo "PASS: in_use"
