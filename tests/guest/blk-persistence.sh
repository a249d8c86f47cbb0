# SPDX-License-Identifier: GPL-2.0
# Data written and synced through our driver survives a hard power-off: boot 0 writes 8 MiB of
# random data and its checksum, syncs and cuts the power; boot 1 reads both back from the image.
# Over the copying transport the device host has a volatile write cache (virtio4-host blk
# --volatile-cache: only a flush writes to the image), so the data survives only if the driver
# flushed; the negative control, 1 MiB written after the last sync (direct I/O, read back from
# the cache before the cut), must be gone after it. Over PCI, QEMU's writeback cache reaches
# the image file whether or not the guest flushed: there the test shows only that the data
# arrived, and the copying transport's run is the one that shows the flush.
# kernels: debug stock
# transports: pci copy
# boots: 2
# timeout: 120
# setup: truncate -s 64M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0
. /tests/lib.sh

# The negative control's data: 1 MiB of 0xa5 at 16 MiB (the image holds zeroes there).
control() {
	head -c 1048576 /dev/zero | tr '\0' '\245'
}
control_sum=$(control | sha256sum | cut -d' ' -f1)
# control_on_disk: read the 1 MiB at 16 MiB; its sha256 goes to $on_disk.
control_on_disk() {
	dd if=/dev/v4blk0 of=/tmp/control bs=1M skip=16 count=1 iflag=direct 2>/dev/null &&
		[ "$(size_of /tmp/control)" = 1048576 ] || fail "reading 1 MiB at 16 MiB"
	on_disk=$(sha256sum </tmp/control | cut -d' ' -f1)
}

BLK_HOST_OPTIONS=--volatile-cache
load_virtio4_blk
if [ "$BOOT" = 0 ]; then
	head -c 8388608 /dev/urandom >/tmp/data
	expect_eq "size of the random data" 8388608 "$(size_of /tmp/data)"
	sum=$(sha256sum </tmp/data | cut -d' ' -f1)
	dd if=/tmp/data of=/dev/v4blk0 bs=1M seek=1 conv=fsync 2>/dev/null || fail "writing the data"
	echo "$sum" | dd of=/dev/v4blk0 bs=512 count=1 conv=sync,fsync 2>/dev/null ||
		fail "writing the checksum"
	echo "ok: wrote 8 MiB with sha256 $sum"
	control | dd of=/dev/v4blk0 bs=1M seek=16 oflag=direct 2>/dev/null || fail "writing the control"
	control_on_disk
	expect_eq "the control read back before the cut" "$control_sum" "$on_disk"
	power_off_hard
fi
sum=$(head -c 64 /dev/v4blk0)
echo "$sum" | grep -qE '^[0-9a-f]{64}$' || fail "no checksum survived: '$sum'"
got=$(dd if=/dev/v4blk0 bs=1M skip=1 count=8 2>/dev/null | sha256sum | cut -d' ' -f1)
expect_eq "sha256 of the 8 MiB after the power cut" "$sum" "$got"
if [ "$TRANSPORT" = copy ]; then
	control_on_disk
	[ "$on_disk" != "$control_sum" ] ||
		fail "the control, never flushed, survived the cut: the write cache is not volatile"
	echo "ok: the control, never flushed, is gone"
fi
