# SPDX-License-Identifier: GPL-2.0
# Our virtio-mmio transport beside Linux's virtio_mmio in one guest (QEMU's microvm, its two
# disks found in ACPI): Linux's virtio_mmio and virtio_blk take both, one is unbound and steered
# to virtio4-mmio with driver_override; then Linux drives one disk (vdX) and ours the other
# (v4blk0), 4 MiB round-trip on each, and unloading our modules leaves Linux's disk working.
# kernels: stock
# transports: mmio
# timeout: 90
# setup: truncate -s 16M a.img && truncate -s 16M b.img
# qemu: -drive file=$WORK/a.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0
# qemu: -drive file=$WORK/b.img,if=none,id=d1,format=raw -device virtio-blk-pci,drive=d1
. /tests/lib.sh

linux_disks() {
	ls /sys/block | grep '^vd' || true
}

modprobe virtio_mmio && modprobe virtio_blk || fail "loading Linux's virtio_mmio and virtio_blk"
for _ in $(seq 100); do
	[ "$(linux_disks | wc -l)" = 2 ] && break
	sleep 0.1
done
expect_eq "disks Linux's virtio_blk drives" 2 "$(linux_disks | wc -l)"
dev=$(ls /sys/bus/platform/drivers/virtio-mmio | grep '^LNRO0005:' | sort | tail -n 1)
[ -n "$dev" ] || fail "no ACPI virtio-mmio device bound to virtio_mmio"
echo "$dev" >/sys/bus/platform/drivers/virtio-mmio/unbind || fail "unbinding $dev from virtio_mmio"
echo virtio4-mmio >"/sys/bus/platform/devices/$dev/driver_override" || fail "driver_override"
load_virtio4_blk
expect_eq "driver of $dev" virtio4-mmio \
	"$(basename "$(readlink "/sys/bus/platform/devices/$dev/driver")")"
vd=$(linux_disks)
expect_eq "disks left to Linux's virtio_blk" 1 "$(echo "$vd" | grep -c .)"
round_trip 4096 "Linux's virtio_mmio" "/dev/$vd"
round_trip 4096 "our virtio4_mmio" /dev/v4blk0
rmmod virtio4_blk virtio4_mmio || fail "unloading our modules"
round_trip 4096 "Linux's virtio_mmio after ours unloaded" "/dev/$vd"
echo "ok: /dev/$vd on Linux's virtio_mmio and v4blk0 on ours, side by side"
