# SPDX-License-Identifier: GPL-2.0
# The device host is untrusted: only root may create devices (the file is 0600 and the create
# ioctl wants CAP_SYS_ADMIN), and a host that completes every buffer twice has each duplicate
# refused with EINVAL and a log line, while the I/O itself stays correct.
# kernels: debug stock
# timeout: 200
. /tests/lib.sh

modprobe virtio4_copy && modprobe virtio4_blk || fail "loading virtio4_copy, virtio4_blk"
expect_eq "mode of /dev/virtio4-host" 600 "$(stat -c %a /dev/virtio4-host)"
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
truncate -s 64M /tmp/disk.img
chmod 666 /tmp/disk.img
out=$(su -s /bin/sh nobody -c 'virtio4-host blk /tmp/disk.img' 2>&1) &&
	fail "an unprivileged device host ran"
echo "$out" | grep -q 'Permission denied' || fail "unprivileged open: $out"
echo "ok: unprivileged open refused: $out"
chmod 666 /dev/virtio4-host
out=$(su -s /bin/sh nobody -c 'virtio4-host blk /tmp/disk.img' 2>&1) &&
	fail "an unprivileged device host created a device"
echo "$out" | grep -q 'Operation not permitted' || fail "unprivileged create: $out"
echo "ok: unprivileged create refused: $out"
chmod 600 /dev/virtio4-host
expect_eq "devices on the virtio4 bus" 0 "$(ls /sys/bus/virtio4/devices | wc -l)"

dmesg -c >/dev/null
serve_blk /tmp/disk.img --misbehave duplicate
head -c 8388608 /dev/urandom >/tmp/data
dd if=/tmp/data of=/dev/v4blk0 bs=64k oflag=direct 2>/dev/null || fail "writing"
dd if=/dev/v4blk0 of=/tmp/back bs=64k count=128 iflag=direct 2>/dev/null || fail "reading"
cmp /tmp/data /tmp/back || fail "data changed under duplicate completions"
echo "ok: 8 MiB round-trip with every completion duplicated"
refused=$(dmesg | grep -c 'device host: queue 0: token .* is not in flight' || true)
[ "$refused" -ge 1 ] || fail "no duplicate was refused in the log"
echo "ok: $refused duplicates logged (rate-limited)"
kill "$HOST_PID"
