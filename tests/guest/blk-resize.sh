# SPDX-License-Identifier: GPL-2.0
# A disk resized by the host (QMP block_resize) raises a config-change interrupt; the driver
# reads the new capacity and the block layer sees it. First on an idle disk (32 -> 48 MiB: the
# new last 4 KiB round-trip), then under fio (random writes in the first 16 MiB, each batch of
# 64 read back and checked as it goes) grown to 64 MiB and shrunk to 24 MiB: fio finishes without an error,
# I/O past the new end fails, the new last 4 KiB round-trip.
# kernels: debug stock
# timeout: 120
# setup: truncate -s 32M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0
# host: ../qemu/wait-console.sh 0 resize && ../qemu/qmp.py "$QMP0" block_resize '{"device": "d0", "size": 50331648}' &&
# host: ../qemu/wait-console.sh 0 grow && ../qemu/qmp.py "$QMP0" block_resize '{"device": "d0", "size": 67108864}' &&
# host: ../qemu/wait-console.sh 0 shrink && ../qemu/qmp.py "$QMP0" block_resize '{"device": "d0", "size": 25165824}'
. /tests/lib.sh

load_virtio4_blk
expect_eq "size before" 65536 "$(cat /sys/block/v4blk0/size)"
host_step resize
for _ in $(seq 300); do
	[ "$(cat /sys/block/v4blk0/size)" = 98304 ] && break
	sleep 0.1
done
expect_eq "size after block_resize to 48 MiB" 98304 "$(cat /sys/block/v4blk0/size)"

# last_block_round_trip SECTORS: the last 4 KiB of a disk of SECTORS sectors round-trip.
last_block_round_trip() {
	head -c 4096 /dev/urandom >/tmp/p
	dd if=/tmp/p of=/dev/v4blk0 bs=4096 seek=$(($1 / 8 - 1)) oflag=direct 2>/dev/null ||
		fail "writing the last 4 KiB of $1 sectors"
	dd if=/dev/v4blk0 of=/tmp/b bs=4096 skip=$(($1 / 8 - 1)) iflag=direct 2>/dev/null
	cmp /tmp/p /tmp/b || fail "the last 4 KiB of $1 sectors did not round-trip"
	echo "ok: the last 4 KiB of $1 sectors round-trip"
}

# resized_to STEP SECTORS: ask the host for STEP, wait until the disk has SECTORS sectors.
resized_to() {
	host_step "$1"
	for _ in $(seq 300); do
		[ "$(cat /sys/block/v4blk0/size)" = "$2" ] && break
		sleep 0.1
	done
	expect_eq "size after $1" "$2" "$(cat /sys/block/v4blk0/size)"
}

last_block_round_trip 98304
fio --name=resize --filename=/dev/v4blk0 --size=16M --rw=randwrite --bs=4k --ioengine=libaio \
	--iodepth=16 --direct=1 --time_based --runtime=20 --verify=crc32c --verify_backlog=64 \
	--verify_fatal=1 --eta=never --output=/tmp/fio.log >/dev/null 2>&1 &
fio_pid=$!
sleep 3
resized_to grow 131072
sleep 2
resized_to shrink 49152
kill -0 $fio_pid || fail "fio ended before the resizes were done: $(cat /tmp/fio.log)"
wait $fio_pid || fail "fio under resizing: $(grep -i 'err\|verify' /tmp/fio.log | head -n 5)"
grep -q "err= 0" /tmp/fio.log || fail "fio reported an error: $(grep 'err=' /tmp/fio.log)"
# The verification reads are the job's issued reads ("issued rwts: total=READS,WRITES,...";
# fio leaves out its "read: IOPS=" line in some runs that read: seen on a slow host).
reads=$(sed -n 's/.*issued rwts: total=\([0-9]*\),.*/\1/p' /tmp/fio.log)
[ "${reads:-0}" -gt 0 ] || fail "fio read nothing back: $(cat /tmp/fio.log)"
echo "ok: fio read back $reads blocks as it went"
echo "ok: fio verified the first 16 MiB while the disk grew to 64 MiB and shrank to 24 MiB"
if dd if=/tmp/p of=/dev/v4blk0 bs=4096 seek=$((49152 / 8)) oflag=direct 2>/dev/null; then
	fail "a write past the new end (24 MiB) succeeded"
fi
echo "ok: a write past the new end fails"
last_block_round_trip 49152
