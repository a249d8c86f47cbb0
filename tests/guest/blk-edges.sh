# SPDX-License-Identifier: GPL-2.0
# Disk edges: the capacity of a disk whose size is not a multiple of 4 KiB, the last sector
# round-trips, I/O past the end fails, and a read-only disk serves reads but refuses writes.
# kernels: debug stock
# transports: pci copy
# timeout: 120
# setup: truncate -s 67110400 odd.img && printf 'read-only-pattern' >ro.img && truncate -s 1M ro.img
# qemu: -drive file=$WORK/odd.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0,addr=04.0
# qemu: -drive file=$WORK/ro.img,if=none,id=d1,format=raw,readonly=on -device virtio-blk-pci,drive=d1,addr=05.0
. /tests/lib.sh

load_virtio4_blk
wait_for_disk v4blk1
# The disks are probed in PCI order: 04.0 is v4blk0, 05.0 is v4blk1.
sectors=$((67110400 / 512))
expect_eq "odd disk size in bytes" 67110400 "$(blockdev --getsize64 /dev/v4blk0)"
expect_eq "odd disk size in sectors" $sectors "$(cat /sys/block/v4blk0/size)"

head -c 512 /dev/urandom >/tmp/last
expect_eq "size of the last-sector pattern" 512 "$(size_of /tmp/last)"
dd if=/tmp/last of=/dev/v4blk0 bs=512 seek=$((sectors - 1)) count=1 oflag=direct 2>/dev/null ||
	fail "writing the last sector"
dd if=/dev/v4blk0 of=/tmp/back bs=512 skip=$((sectors - 1)) count=1 iflag=direct 2>/dev/null ||
	fail "reading the last sector"
expect_eq "size read back from the last sector" 512 "$(size_of /tmp/back)"
cmp /tmp/last /tmp/back || fail "the last sector did not round-trip"
echo "ok: last sector $((sectors - 1)) round-trips"

expect_fail "writing one sector past the end" \
	dd if=/tmp/last of=/dev/v4blk0 bs=512 seek=$sectors count=1 oflag=direct
n=$(dd if=/dev/v4blk0 bs=512 skip=$sectors count=1 iflag=direct 2>/dev/null | wc -c)
expect_eq "bytes read past the end" 0 $((n))

expect_eq "read-only flag of the read-only disk" 1 "$(blockdev --getro /dev/v4blk1)"
expect_eq "pattern read from the read-only disk" read-only-pattern "$(head -c 17 /dev/v4blk1)"
expect_fail "writing to the read-only disk" \
	dd if=/tmp/last of=/dev/v4blk1 bs=512 count=1 oflag=direct
expect_eq "read-only disk unchanged" read-only-pattern "$(head -c 17 /dev/v4blk1)"
