# SPDX-License-Identifier: GPL-2.0
# The runner's QMP socket lets a test's host side hot-plug and remove devices: a disk
# plugged after boot appears on our driver and reads back its pattern; removed, it goes away.
# timeout: 120
# setup: printf 'virtio4-hotplug-pattern' | dd of=disk.img bs=1M seek=0 conv=notrunc 2>/dev/null && truncate -s 16M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=hp,format=raw
# pci-hotplug: the host command plugs and unplugs a device (QMP device_add, device_del)
# host: ../qemu/wait-console.sh 0 plug && ../qemu/qmp.py "$QMP0" device_add '{"driver": "virtio-blk-pci", "drive": "hp", "id": "hpdisk"}' && ../qemu/wait-console.sh 0 unplug && ../qemu/qmp.py "$QMP0" device_del '{"id": "hpdisk"}'
. /tests/lib.sh

modprobe virtio4_pci && modprobe virtio4_blk || fail "loading our modules"
[ ! -e /dev/v4blk0 ] || fail "a disk exists before the hot-plug"
host_step plug
wait_for_disk v4blk0 300
expect_eq "pattern read from the hot-plugged disk" virtio4-hotplug-pattern \
	"$(head -c 23 /dev/v4blk0)"
host_step unplug
for _ in $(seq 300); do
	[ -e /dev/v4blk0 ] || break
	sleep 0.1
done
[ ! -e /dev/v4blk0 ] || fail "/dev/v4blk0 still exists after device_del"
echo "ok: the disk went away after device_del"
