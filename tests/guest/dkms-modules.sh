# SPDX-License-Identifier: GPL-2.0
# The modules as DKMS builds them (tests/qemu/dkms.sh: dkms add + dkms build against the stock
# kernel's headers, on the host, in a private tree) load in a guest of that kernel and drive a
# disk: they come on a disk image read through Linux's virtio_blk, our PCI transport takes the
# other disk (driver_override), and data written through it reads back.
# kernels: stock
# timeout: 240
# setup: "$top/tests/qemu/dkms.sh" . && truncate -s 64M disk.img
# qemu: -drive file=$WORK/dkms.img,if=none,id=m,format=raw,readonly=on -device virtio-blk-pci,drive=m,addr=05.0
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0,addr=06.0,serial=DKMS-0
. /tests/lib.sh

echo virtio4-pci >/sys/bus/pci/devices/0000:00:06.0/driver_override
modprobe virtio_pci && modprobe virtio_blk && modprobe ext4 || fail "loading Linux's virtio_blk"
wait_for /dev/vda
mkdir -p /dkms
mount -t ext4 -o ro /dev/vda /dkms || fail "mounting the DKMS image"
for m in virtio4 virtio4_ring virtio4_pci virtio4_blk virtio4_copy virtio4_net; do
	insmod /dkms/$m.ko || fail "insmod of DKMS's $m.ko"
	expect_eq "srcversion of $m" "$(modinfo -F srcversion /dkms/$m.ko)" \
		"$(cat /sys/module/$m/srcversion)"
done
wait_for_disk v4blk0
expect_eq "driver of the disk at 06.0" virtio4-pci \
	"$(basename "$(readlink /sys/bus/pci/devices/0000:00:06.0/driver)")"
expect_eq "serial of v4blk0" DKMS-0 "$(cat /sys/block/v4blk0/serial)"
round_trip 1024 "DKMS's virtio4_blk"
echo "ok: 1 MiB round-trips through DKMS's virtio4_blk"
for m in virtio4_net virtio4_copy virtio4_blk virtio4_pci virtio4_ring virtio4; do
	rmmod $m || fail "rmmod $m"
done
umount /dkms
