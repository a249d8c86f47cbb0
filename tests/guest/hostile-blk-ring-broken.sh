# SPDX-License-Identifier: GPL-2.0
# Hostile device, through the ring on PCI: the queues break during fio (as when the ring finds
# a lie in the used ring; QEMU's device never lies, so debugfs virtio4/<device>/break does it
# here). The block driver resets the device and fails its I/O within 5 s with one log line;
# later I/O fails at once; the device can still be removed; nothing leaks.
# kernels: debug stock
# time-bound: fio must fail within 5 s of the break
# timeout: 180
# setup: truncate -s 128M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0,num-queues=2
. /tests/lib.sh

kmemleak_start
load_virtio4_blk
dev=$(basename "$(readlink /sys/block/v4blk0/device)")
pci=$(basename "$(readlink -f /sys/bus/virtio4/devices/"$dev"/..)")
dmesg -c >/dev/null
fio_start /dev/v4blk0
echo 1 >/sys/kernel/debug/virtio4/"$dev"/break || fail "breaking the queues"
broke=$(date +%s)
wait $FIO_PID && fail "fio succeeded on a broken device"
took=$(($(date +%s) - broke))
echo "ok: fio failed $took s after the queues broke"
[ "$took" -le 5 ] || fail "fio took $took s to fail"
expect_log "the ring's reason" "queue .* broken: broken on request"
expect_log "the driver's reason" "a request queue broke: device reset"
dd if=/dev/v4blk0 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &&
	fail "a read succeeded on a disk given up"
echo "ok: later I/O fails at once"
echo "$pci" >/sys/bus/pci/drivers/virtio4-pci/unbind || fail "unbinding $pci"
[ ! -e /dev/v4blk0 ] || fail "/dev/v4blk0 is still there after unbind"
rmmod virtio4_blk && rmmod virtio4_pci || fail "unloading"
kmemleak_check
