# SPDX-License-Identifier: GPL-2.0
# ext4 on our block driver: files of varied sizes keep their checksums across
# umount, a clean e2fsck -fn, and a remount.
# kernels: debug stock
# transports: pci copy
# rings: split packed
# mmio: modern legacy
# timeout: 240
# setup: truncate -s 256M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw,cache=unsafe -device virtio-blk-pci,drive=d0
. /tests/lib.sh

load_virtio4_blk
mkfs.ext4 -q -F /dev/v4blk0 || fail "mkfs.ext4"
mount -t ext4 /dev/v4blk0 /mnt || fail "mount"
n=0
for size in 0 1 511 512 4095 4096 65537 1048576 3000000 16777216; do
	head -c "$size" /dev/urandom >/tmp/src || fail "making $size random bytes"
	expect_eq "size of source $size" "$size" "$(size_of /tmp/src)"
	cp /tmp/src "/mnt/f$size"
	sha256sum </tmp/src | cut -d' ' -f1 >"/tmp/f$size.sum"
	n=$((n + 1))
done
umount /mnt || fail "umount"
e2fsck -fn /dev/v4blk0 || fail "e2fsck -fn found problems"
echo "ok: e2fsck -fn clean"
mount -t ext4 /dev/v4blk0 /mnt || fail "remount"
for f in /tmp/f*.sum; do
	name=$(basename "$f" .sum)
	size=${name#f}
	expect_eq "size of $name" "$size" "$(size_of "/mnt/$name")"
	expect_eq "sha256 of $name" "$(cat "$f")" "$(sha256sum <"/mnt/$name" | cut -d' ' -f1)"
done
umount /mnt
echo "ok: $n files round-tripped through ext4 on /dev/v4blk0"
