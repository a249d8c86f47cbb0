# SPDX-License-Identifier: GPL-2.0
# Hostile device: the device never accepts FEATURES_OK. The bus refuses to bind the driver and
# says so in one log line; no disk appears; the device goes away with its host; nothing leaks.
# kernels: debug
# timeout: 120
. /tests/lib.sh

kmemleak_start
modprobe virtio4_copy && modprobe virtio4_blk || fail "loading virtio4_copy, virtio4_blk"
truncate -s 64M /tmp/disk.img
dmesg -c >/dev/null
virtio4-host blk --misbehave refuse-features /tmp/disk.img &
HOST_PID=$!
for _ in $(seq 100); do
	dmesg | grep -q 'refused FEATURES_OK' && break
	sleep 0.1
done
expect_log "the bus's reason" 'device refused FEATURES_OK'
expect_eq "devices on the virtio4 bus" 1 "$(ls /sys/bus/virtio4/devices | wc -l)"
dev=$(ls /sys/bus/virtio4/devices)
[ ! -e "/sys/bus/virtio4/devices/$dev/driver" ] || fail "a driver bound to $dev"
[ ! -e /dev/v4blk0 ] || fail "a disk appeared"
echo "ok: $dev has no driver and no disk"
stop_host
rmmod virtio4_blk && rmmod virtio4_copy || fail "unloading virtio4_blk, virtio4_copy"
kmemleak_check
