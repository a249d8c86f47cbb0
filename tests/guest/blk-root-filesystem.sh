# SPDX-License-Identifier: GPL-2.0
# The root filesystem on our disk, as make run has it: /init (virtio4_root=v4blk0) makes ext4
# on /dev/v4blk0, copies the image's files there and switches root to it before the test runs.
# The test runs from that root: / is /dev/v4blk0 (ext4), the tools run from it, 16 MiB written
# to a file and synced read back equal after the caches are dropped, and the filesystem can be
# remounted read-only (nothing left unwritten) and back read-write.
# kernels: debug stock
# timeout: 180
# append: virtio4_root=v4blk0
# setup: truncate -s 256M root.img
# qemu: -drive file=$WORK/root.img,if=none,id=d0,format=raw,cache=unsafe -device virtio-blk-pci,drive=d0
. /tests/lib.sh

[ -e /.virtio4-root ] || fail "the root filesystem did not move to /dev/v4blk0"
expect_eq "the root filesystem" "/dev/v4blk0 ext4" \
	"$(awk '$2 == "/" { r = $1 " " $3 } END { print r }' /proc/mounts)"
expect_eq "driver of the root disk's device" virtio4_blk \
	"$(basename "$(readlink /sys/block/v4blk0/device/driver)")"
head -c 16777216 /dev/urandom >/tmp/data
sum=$(sha256sum </tmp/data | cut -d' ' -f1)
cp /tmp/data /root/data && sync || fail "writing /root/data"
echo 3 >/proc/sys/vm/drop_caches
expect_eq "sha256 of /root/data after a sync and dropped caches" "$sum" \
	"$(sha256sum </root/data | cut -d' ' -f1)"
mount -o remount,ro / || fail "remounting / read-only"
mount -o remount,rw / || fail "remounting / read-write"
rm /root/data && sync || fail "removing /root/data"
echo "ok: / on /dev/v4blk0 takes writes, syncs and remounts"
