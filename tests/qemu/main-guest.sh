# SPDX-License-Identifier: GPL-2.0
# make run: the guest's side. Loads our modules, puts ext4 on a disk driven by our block driver,
# and reports the devices, the drivers and a write and a read with their rates.
# timeout: 180
# setup: truncate -s 512M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw,cache=writeback -device virtio-blk-pci,drive=d0,serial=virtio4-run
. /tests/lib.sh

echo "== virtio4 guest on $(uname -r), $(nproc) CPUs"
for m in $(shipped_modules); do
	modprobe "$m" || fail "modprobe $m"
	echo "-- $m: $(modinfo -F description "$m")"
done
wait_for /dev/v4blk0
echo "-- virtio4 devices:"
for d in /sys/bus/virtio4/devices/*; do
	drv=$(basename "$(readlink "$d/driver")")
	parent=$(basename "$(dirname "$(readlink -f "$d")")")
	echo "   $(basename "$d"): virtio device $(cat "$d/device") on PCI $parent, driver $drv, features $(cat "$d/features")"
done
echo "-- disk v4blk0: $(($(cat /sys/block/v4blk0/size) / 2048)) MiB, serial $(cat /sys/block/v4blk0/serial)"
mkfs.ext4 -q -F /dev/v4blk0 && mount -t ext4 /dev/v4blk0 /mnt || fail "ext4 on v4blk0"
echo "-- ext4 on v4blk0 mounted at /mnt: $(df -h /mnt | tail -n 1)"
# rate WHAT COMMAND...: run COMMAND on 128 MiB and print its rate (TCG emulation: slow).
rate() {
	local what=$1 t0 t1
	shift
	t0=$(cut -d' ' -f1 /proc/uptime | tr -d .)
	"$@" 2>/dev/null || fail "$what"
	t1=$(cut -d' ' -f1 /proc/uptime | tr -d .)
	echo "-- $what 128 MiB in $(((t1 - t0) * 10)) ms: $((128 * 100 / (t1 - t0 + 1))) MiB/s"
}
rate "write (with fsync)" dd if=/dev/zero of=/mnt/file bs=1M count=128 conv=fsync
echo 3 >/proc/sys/vm/drop_caches
rate "read back" dd if=/mnt/file of=/dev/null bs=1M
expect_eq "size of the file read back" 134217728 "$(size_of /mnt/file)"
umount /mnt
