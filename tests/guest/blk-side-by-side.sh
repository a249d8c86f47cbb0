# SPDX-License-Identifier: GPL-2.0
# Side by side in one guest: one disk on our driver, an identical one on Linux's virtio_blk
# (steered with driver_override); the same fio verification passes on both (of 32 MiB; 8 on the
# debug kernel, where the point is both drivers' coexistence under its sanitizers).
# kernels: debug stock
# timeout: 400
# setup: truncate -s 64M ours.img && truncate -s 64M linux.img
# qemu: -drive file=$WORK/ours.img,if=none,id=d0,format=raw,cache=unsafe -device virtio-blk-pci,drive=d0,addr=04.0
# qemu: -drive file=$WORK/linux.img,if=none,id=d1,format=raw,cache=unsafe -device virtio-blk-pci,drive=d1,addr=05.0
. /tests/lib.sh

echo virtio4-pci >/sys/bus/pci/devices/0000:00:04.0/driver_override
echo virtio-pci >/sys/bus/pci/devices/0000:00:05.0/driver_override
modprobe virtio_pci && modprobe virtio_blk || fail "loading Linux's virtio_blk"
load_virtio4_blk
wait_for /dev/vda
expect_eq "driver of 00:04.0" virtio4-pci "$(basename "$(readlink /sys/bus/pci/devices/0000:00:04.0/driver)")"
expect_eq "driver of 00:05.0" virtio-pci "$(basename "$(readlink /sys/bus/pci/devices/0000:00:05.0/driver)")"
[ ! -e /dev/v4blk1 ] && [ ! -e /dev/vdb ] || fail "a disk was taken by the wrong driver"
for disk in v4blk0 vda; do
	echo "== /dev/$disk"
	fio_verify /dev/$disk "$(by_kernel 32 8)M"
done
