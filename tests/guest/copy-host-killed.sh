# SPDX-License-Identifier: GPL-2.0
# The device host is killed during fio: the I/O fails with errors within 10 s, the disk goes
# away, nothing leaks (kmemleak, on the debug kernel), and a new device host serves again.
# kernels: debug stock
# time-bound: fio must fail within 10 s of the kill
# timeout: 300
. /tests/lib.sh

kmemleak_start
modprobe virtio4_copy && modprobe virtio4_blk || fail "loading virtio4_copy, virtio4_blk"
truncate -s 256M /tmp/disk.img
serve_blk /tmp/disk.img
fio_start /dev/v4blk0
kill -9 "$HOST_PID"
killed=$(date +%s)
if wait $FIO_PID; then
	fail "fio succeeded although its device host was killed"
fi
took=$(($(date +%s) - killed))
echo "ok: fio failed $took s after the kill: $(grep -m 1 -i 'error' /tmp/fio.log)"
[ "$took" -le 10 ] || fail "fio took $took s to fail"
expect_disk_gone

serve_blk /tmp/disk.img
dd if=/dev/v4blk0 of=/dev/null bs=1M count=16 iflag=direct 2>/dev/null || fail "reading again"
echo "ok: a new device host serves the disk again"
kill "$HOST_PID"
wait "$HOST_PID" 2>/dev/null || true
rmmod virtio4_blk && rmmod virtio4_copy || fail "unloading virtio4_blk, virtio4_copy"
kmemleak_check
