# SPDX-License-Identifier: GPL-2.0
# A disk resized by the host (QMP block_resize) raises a config-change interrupt; the driver
# reads the new capacity and the block layer sees it.
# kernels: debug stock
# timeout: 120
# setup: truncate -s 32M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0
# host: ../qemu/wait-console.sh 0 resize && ../qemu/qmp.py "$QMP0" block_resize '{"device": "d0", "size": 50331648}'
. /tests/lib.sh

load_virtio4_blk
expect_eq "size before" 65536 "$(cat /sys/block/v4blk0/size)"
host_step resize
for _ in $(seq 300); do
	[ "$(cat /sys/block/v4blk0/size)" = 98304 ] && break
	sleep 0.1
done
expect_eq "size after block_resize to 48 MiB" 98304 "$(cat /sys/block/v4blk0/size)"
head -c 4096 /dev/urandom >/tmp/p
dd if=/tmp/p of=/dev/v4blk0 bs=4096 seek=$((98304 / 8 - 1)) oflag=direct 2>/dev/null ||
	fail "writing the new last 4 KiB"
dd if=/dev/v4blk0 of=/tmp/b bs=4096 skip=$((98304 / 8 - 1)) iflag=direct 2>/dev/null
cmp /tmp/p /tmp/b || fail "the new last 4 KiB did not round-trip"
echo "ok: the grown area round-trips"
