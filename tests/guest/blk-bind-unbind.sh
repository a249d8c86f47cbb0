# SPDX-License-Identifier: GPL-2.0
# Our block stack loads by modalias and in any order, unbinds and rebinds through sysfs (at both the virtio4
# and the PCI level) with its data intact, refuses rmmod while mounted, and unloads when idle.
# kernels: debug stock
# timeout: 180
# setup: printf 'bind-unbind-pattern' >disk.img && truncate -s 32M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0,addr=04.0
. /tests/lib.sh

pci=0000:00:04.0
check_disk() {
	wait_for_disk v4blk0
	expect_eq "pattern on v4blk0 ($1)" bind-unbind-pattern "$(head -c 19 /dev/v4blk0)"
}
wait_gone() {
	for _ in $(seq 100); do
		[ -e /dev/v4blk0 ] || return 0
		sleep 0.1
	done
	fail "/dev/v4blk0 still there after $1"
}

# The driver loads from the device's modalias, as udev would load it.
modprobe virtio4_pci || fail "loading the transport"
wait_for /sys/bus/virtio4/devices/virtio4.0/modalias
alias=$(cat /sys/bus/virtio4/devices/virtio4.0/modalias)
expect_eq "modalias" virtio4:d00000002v00001AF4 "$alias"
modprobe "$alias" || fail "modprobe $alias"
module_loaded virtio4_blk || fail "the modalias did not load virtio4_blk"
check_disk "driver loaded by modalias"
rmmod virtio4_blk virtio4_pci || fail "rmmod when idle"
wait_gone "rmmod"

# Driver first, then transport; then the reverse.
modprobe virtio4_blk && modprobe virtio4_pci || fail "loading driver before transport"
check_disk "driver loaded first"
rmmod virtio4_pci && rmmod virtio4_blk || fail "rmmod when idle"
wait_gone "rmmod"
modprobe virtio4_pci && modprobe virtio4_blk || fail "loading transport before driver"
check_disk "transport loaded first"

vdev=$(basename "$(readlink /sys/block/v4blk0/device)")
echo "$vdev" >/sys/bus/virtio4/drivers/virtio4_blk/unbind || fail "virtio4 unbind"
wait_gone "virtio4 unbind"
echo "$vdev" >/sys/bus/virtio4/drivers/virtio4_blk/bind || fail "virtio4 bind"
check_disk "virtio4 rebind"

echo $pci >/sys/bus/pci/drivers/virtio4-pci/unbind || fail "PCI unbind"
wait_gone "PCI unbind"
echo $pci >/sys/bus/pci/drivers/virtio4-pci/bind || fail "PCI bind"
check_disk "PCI rebind"

mkfs.ext4 -q -F /dev/v4blk0 && mount -t ext4 /dev/v4blk0 /mnt || fail "mounting"
expect_fail "rmmod virtio4_blk while mounted" rmmod virtio4_blk
umount /mnt
rmmod virtio4_blk || fail "rmmod virtio4_blk after umount"
rmmod virtio4_pci virtio4_ring virtio4 || fail "rmmod of the rest"
echo "ok: everything unloaded"
