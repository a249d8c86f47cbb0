# SPDX-License-Identifier: GPL-2.0
# What a device can make the guest pin at probe: a disk with 2 queues of 1024 entries and
# seg_max 1022 (QEMU's seg-max-adjust) means 2048 requests or more. Each request carries 4
# scatterlist entries and chains longer lists from the kernel's pool when it needs them, so
# binding the disk costs the guest less than 16 MiB (an entry per segment in every request
# would be 32 KiB a request, over 64 MiB); the disk then round-trips 4 MiB in 1 MiB requests.
# kernels: stock
# timeout: 120
# setup: truncate -s 64M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw,cache=unsafe -device virtio-blk-pci,drive=d0,queue-size=1024,num-queues=2
. /tests/lib.sh

# mem_available: MemAvailable in KiB.
mem_available() {
	sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo
}

modprobe virtio4_pci || fail "modprobe virtio4_pci"
sync
echo 3 >/proc/sys/vm/drop_caches
before=$(mem_available)
modprobe virtio4_blk || fail "modprobe virtio4_blk"
wait_for_disk v4blk0
expect_eq "queue depth" 1024 "$(cat /sys/block/v4blk0/mq/0/nr_tags)"
expect_eq "segments per request" 1022 "$(cat /sys/block/v4blk0/queue/max_segments)"
sync
echo 3 >/proc/sys/vm/drop_caches
used=$((before - $(mem_available)))
echo "binding the disk took $used KiB"
[ "$used" -lt 16384 ] || fail "binding the disk took $used KiB (at most 16 MiB)"
echo "ok: binding the disk took $used KiB"
head -c 4194304 /dev/urandom >/tmp/p
dd if=/tmp/p of=/dev/v4blk0 bs=1M oflag=direct 2>/dev/null || fail "writing 4 MiB"
dd if=/dev/v4blk0 of=/tmp/b bs=1M count=4 iflag=direct 2>/dev/null || fail "reading 4 MiB"
cmp /tmp/p /tmp/b || fail "4 MiB in 1 MiB requests did not round-trip"
echo "ok: 4 MiB round-trip in 1 MiB requests"
