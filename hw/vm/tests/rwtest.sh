#!/bin/sh
# write a pattern on a scratch LBA range, read it back; no writes without --allow-write.
. /lib.sh
bind_vfio
expect_rc 3 nvmesim-hw rwtest --device $DEV_VFIO
expect_output "allow-write"
# A range that wrapped past the old check (std::stoull("-8") is 2^64 - 8): exit 2, no I/O.
expect_rc 2 nvmesim-hw rwtest --device $DEV_VFIO --allow-write -8:16
expect_output "^nvmesim-hw: --allow-write: "
expect_rc 2 nvmesim-hw rwtest --device $DEV_VFIO --allow-write 18446744073709551615:2
expect_output "overflows"
expect_rc 3 nvmesim-hw rwtest --device $DEV_VFIO --allow-write 131000:1000
expect_output "ends past the namespace"
expect_rc 0 nvmesim-hw rwtest --device $DEV_VFIO --allow-write 4096:1536 --bs 65536
expect_output "all match"
# Small commands too (one PRP, then two), over a range crossing the big ones.
expect_rc 0 nvmesim-hw rwtest --device $DEV_VFIO --allow-write 4000:200 --bs 4096
expect_output "all match"
expect_rc 0 nvmesim-hw rwtest --device $DEV_VFIO --allow-write 5000:64 --bs 8192
expect_output "all match"
echo "PASS: rwtest"
