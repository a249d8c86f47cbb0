# SPDX-License-Identifier: GPL-2.0
# Discard and write-zeroes, which QEMU offers: the driver advertises both to the block layer,
# and a written pattern reads back as 1 MiB of zeroes after BLKDISCARD (unmap), BLKZEROOUT and
# fallocate --punch-hole. The last has no fallback (BLKZEROOUT writes zeroes itself when the
# driver does not take write-zeroes), so it shows the driver's write-zeroes request at work.
# kernels: debug stock
# timeout: 120
# setup: truncate -s 64M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw,discard=unmap -device virtio-blk-pci,drive=d0
. /tests/lib.sh

load_virtio4_blk
features=$(cat /sys/bus/virtio4/devices/virtio4.0/features)
expect_eq "VIRTIO_BLK_F_DISCARD negotiated" 1 $((features >> 13 & 1))
expect_eq "VIRTIO_BLK_F_WRITE_ZEROES negotiated" 1 $((features >> 14 & 1))
[ "$(cat /sys/block/v4blk0/queue/discard_max_bytes)" -gt 0 ] || fail "no discard limit"
[ "$(cat /sys/block/v4blk0/queue/write_zeroes_max_bytes)" -gt 0 ] || fail "no write-zeroes limit"

# pattern_then OFFSET_MIB COMMAND...: write 1 MiB of 0xa5 at OFFSET_MIB, run COMMAND on that
# range, and expect zeroes there afterwards.
pattern_then() {
	local off=$1
	shift
	head -c 1048576 /dev/zero | tr '\0' '\245' >/tmp/pattern
	dd if=/tmp/pattern of=/dev/v4blk0 bs=1M seek="$off" conv=fsync 2>/dev/null || fail "pattern"
	expect_eq "bytes of pattern before $1" 1048576 \
		"$(dd if=/dev/v4blk0 bs=1M skip="$off" count=1 iflag=direct 2>/dev/null | tr -d '\0' | wc -c)"
	"$@" -o $((off * 1048576)) -l 1048576 /dev/v4blk0 || fail "$*"
	dd if=/dev/v4blk0 of=/tmp/back bs=1M skip="$off" count=1 iflag=direct 2>/dev/null ||
		fail "reading back after $*"
	expect_eq "bytes read back after $*" 1048576 "$(size_of /tmp/back)"
	expect_eq "non-zero bytes after $*" 0 "$(tr -d '\0' </tmp/back | wc -c)"
}
pattern_then 8 /usr/sbin/blkdiscard
pattern_then 16 /usr/sbin/blkdiscard -z
pattern_then 24 /usr/bin/fallocate --punch-hole
