# SPDX-License-Identifier: GPL-2.0
# A backend that stalls longer than io_timeout, then recovers; then one that never comes back
# (QMP block_set_io_throttle down to 1 byte per second: nothing completes), on a 16-entry ring
# without indirect descriptors, so that requests also wait for room in it. With io_timeout
# 3 s: during the 5 s stall, fio's writes and verify reads all complete with correct data and no
# error (the driver logs them late and waits); the dead backend's I/O fails within io_timeout +
# 10 s, without a reset (which would freeze a guest whose backend is stuck), while the guest and
# its other disk keep working (and the requests that waited for room in the ring fail too);
# later I/O on the dead disk fails at once.
# kernels: debug stock
# time-bound: the dead backend's I/O must fail within io_timeout + 10 s
# timeout: 240
# setup: truncate -s 64M a.img && truncate -s 16M b.img
# qemu: -drive file=$WORK/a.img,if=none,id=d0,format=raw,cache=unsafe -device virtio-blk-pci,drive=d0,queue-size=16
# qemu: -drive file=$WORK/b.img,if=none,id=d1,format=raw,cache=unsafe -device virtio-blk-pci,drive=d1
# host: ../qemu/wait-console.sh 0 stall 120 && ../qemu/throttle.sh "$QMP0" d0 1 && sleep 5 && ../qemu/throttle.sh "$QMP0" d0 0 && ../qemu/wait-console.sh 0 dead 120 && ../qemu/throttle.sh "$QMP0" d0 1
. /tests/lib.sh

modprobe virtio4 indirect=0 || fail "modprobe virtio4 indirect=0"
load_virtio4_blk
wait_for_disk v4blk1
echo 3000 >/sys/block/v4blk0/queue/io_timeout || fail "setting io_timeout"
dmesg -c >/dev/null
# Writes with their verify reads close behind, for 16 s: the 5 s stall falls inside.
fio --name=stall --filename=/dev/v4blk0 --size=16M --rw=randwrite --bs=4k --iodepth=8 \
	--ioengine=libaio --direct=1 --verify=crc32c --verify_fatal=1 --verify_backlog=64 \
	--time_based --runtime=16 --output-format=terse --terse-version=3 >/tmp/fio.out 2>&1 &
fio_pid=$!
# The stall must find fio writing (not still starting up): 200 writes done first.
for _ in $(seq 300); do
	[ "$(awk '{ print $5 }' /sys/block/v4blk0/stat)" -ge 200 ] && break
	sleep 0.1
done
kill -0 $fio_pid || fail "fio ended before the stall: $(cat /tmp/fio.out)"
[ "$(awk '{ print $5 }' /sys/block/v4blk0/stat)" -ge 200 ] || fail "fio did not start writing"
host_step stall
for _ in $(seq 80); do
	dmesg | grep -q "a request is late" && break
	sleep 0.1
done
expect_log "requests found late in the stall" "a request is late"
wait $fio_pid || fail "fio failed across the stall: $(tail -n 3 /tmp/fio.out)"
expect_eq "fio error across the stall" 0 "$(tail -n 1 /tmp/fio.out | cut -d';' -f5)"
dmesg | grep -q "no completion for" && fail "the disk was given up during a stall it survived"
echo "ok: $(tail -n 1 /tmp/fio.out | cut -d';' -f47) KiB written and verified across a 5 s stall with io_timeout 3 s"

host_step dead
sleep 1
if fio --name=dead --filename=/dev/v4blk0 --size=4M --rw=write --bs=16k --iodepth=16 \
	--ioengine=libaio --direct=1 --output-format=terse --terse-version=3 >/tmp/dead.out 2>&1; then
	fail "4 MiB written to a backend that never comes back"
fi
# terse v3: field 50 is the write phase's runtime in ms, from fio's first I/O to its end.
took=$(tail -n 1 /tmp/dead.out | cut -d';' -f50)
echo "ok: the writes failed after ${took:-?} ms: $(grep -m 1 -i error /tmp/dead.out)"
[ "${took:-99999}" -le 13000 ] || fail "the I/O took ${took:-?} ms to fail (io_timeout 3 s + 10)"
expect_log "the driver's reason" "no completion for .* without a reset"
round_trip 1024 "the other disk while v4blk0 is dead" /dev/v4blk1
echo "ok: the other disk still round-trips"
dd if=/dev/v4blk0 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &&
	fail "a read succeeded on a disk given up"
echo "ok: later I/O fails at once"
