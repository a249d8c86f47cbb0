# SPDX-License-Identifier: GPL-2.0
# The device's serial (VIRTIO_BLK_T_GET_ID) shows in /sys/block/v4blk0/serial, and an fsync on
# ext4 sends a flush to the device (the driver's flush counter grows).
# kernels: debug stock
# timeout: 120
# setup: truncate -s 64M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw,cache=writeback -device virtio-blk-pci,drive=d0,serial=V4-SERIAL-0042
. /tests/lib.sh

load_virtio4_blk
expect_eq "serial in sysfs" V4-SERIAL-0042 "$(cat /sys/block/v4blk0/serial)"
expect_eq "volatile write cache" "write back" "$(cat /sys/block/v4blk0/queue/write_cache)"
mkfs.ext4 -q -F /dev/v4blk0 && mount -t ext4 /dev/v4blk0 /mnt || fail "ext4 on v4blk0"
before=$(cat /sys/block/v4blk0/flushes)
echo data >/mnt/file
dd if=/mnt/file of=/mnt/copy conv=fsync 2>/dev/null || fail "writing with fsync"
after=$(cat /sys/block/v4blk0/flushes)
umount /mnt
[ "$after" -gt "$before" ] || fail "no flush reached the device on fsync ($before -> $after)"
echo "ok: fsync sent $((after - before)) flush(es) to the device"
