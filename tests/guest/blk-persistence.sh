# SPDX-License-Identifier: GPL-2.0
# Data written and synced through our driver survives a hard power-off: boot 0 writes 8 MiB of
# random data and its checksum, syncs and cuts the power; boot 1 reads both back from the image.
# kernels: debug stock
# transports: pci copy
# boots: 2
# timeout: 120
# setup: truncate -s 64M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0
. /tests/lib.sh

load_virtio4_blk
if [ "$BOOT" = 0 ]; then
	head -c 8388608 /dev/urandom >/tmp/data
	expect_eq "size of the random data" 8388608 "$(size_of /tmp/data)"
	sum=$(sha256sum </tmp/data | cut -d' ' -f1)
	dd if=/tmp/data of=/dev/v4blk0 bs=1M seek=1 conv=fsync 2>/dev/null || fail "writing the data"
	echo "$sum" | dd of=/dev/v4blk0 bs=512 count=1 conv=sync,fsync 2>/dev/null ||
		fail "writing the checksum"
	echo "ok: wrote 8 MiB with sha256 $sum"
	power_off_hard
fi
sum=$(head -c 64 /dev/v4blk0)
echo "$sum" | grep -qE '^[0-9a-f]{64}$' || fail "no checksum survived: '$sum'"
got=$(dd if=/dev/v4blk0 bs=1M skip=1 count=8 2>/dev/null | sha256sum | cut -d' ' -f1)
expect_eq "sha256 of the 8 MiB after the power cut" "$sum" "$got"
