#!/bin/sh
# identify the controller through VFIO; bind saves and unbind restores the driver.
. /lib.sh
[ "$(driver_of $DEV_VFIO)" = nvme ] || fail "expected $DEV_VFIO on nvme at boot"
expect_rc 0 nvmesim-hw bind $DEV_VFIO
[ "$(driver_of $DEV_VFIO)" = vfio-pci ] || fail "bind did not bind vfio-pci"
expect_rc 0 nvmesim-hw identify --device $DEV_VFIO
expect_output "serial:     nvmesim0"
expect_output "namespace 1: 131072 blocks of 512 bytes"
expect_output "feature 08h: Set"
expect_rc 0 nvmesim-hw unbind $DEV_VFIO
[ "$(driver_of $DEV_VFIO)" = nvme ] || fail "unbind did not restore the nvme driver"
echo "PASS: identify"
