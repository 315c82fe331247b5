#!/bin/sh
# a device not bound to vfio-pci is refused with a clear message, and nothing changes.
. /lib.sh
[ "$(driver_of $DEV_NVME)" = nvme ] || fail "expected $DEV_NVME on nvme"
expect_rc 3 nvmesim-hw identify --device $DEV_NVME
expect_output "bound to driver 'nvme', not vfio-pci"
write_scenario irq 100000
expect_rc 3 nvmesim-hw run --device $DEV_NVME /tmp/scenario.json
expect_output "not vfio-pci"
# A scenario that does not load: exit 2 with the loader's JSON path, device untouched.
expect_rc 2 nvmesim-hw run --device $DEV_NVME /tmp/scenario.json --set jobs.0.iodepth=0
expect_output "/jobs/0/iodepth"
# Bad option values: exit 2 naming the option, before any device is looked at (issue 8).
expect_rc 2 nvmesim-hw run /tmp/scenario.json --device $DEV_NVME --allow-write -8:16
expect_output "^nvmesim-hw: --allow-write: "
expect_rc 2 nvmesim-hw run /tmp/scenario.json --device $DEV_NVME --io-timeout-ms 99999999999999999999
expect_output "^nvmesim-hw: --io-timeout-ms: "
[ "$(driver_of $DEV_NVME)" = nvme ] || fail "the refused device changed driver"
# A write job without --allow-write is refused before the device is touched.
bind_vfio
sed -i 's/"randread"/"randwrite"/' /tmp/scenario.json
expect_rc 3 nvmesim-hw run --device $DEV_VFIO /tmp/scenario.json
expect_output "allow-write"
echo "PASS: refuse"
