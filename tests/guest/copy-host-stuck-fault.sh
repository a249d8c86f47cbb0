# SPDX-License-Identifier: GPL-2.0
# A device host whose read() buffer faults for ever (userfaultfd, never resolved: a FUSE
# mapping or one of the very disk it serves would do the same): our NIC binds to its device,
# the device host's read() stays in the page fault, and unbinding the NIC (which resets the
# device) still finishes within 10 s: the copying transport never takes a page fault with the
# lock its reset needs. Killing the device host then removes the device.
# kernels: stock
# timeout: 120
. /tests/lib.sh

modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
virtio4-bad-input host-stuck >/tmp/stuck.log 2>&1 &
host=$!
for _ in $(seq 100); do
	[ "$(our_interfaces | wc -l)" = 1 ] && grep -q "faults for ever" /tmp/stuck.log && break
	sleep 0.1
done
expect_eq "interfaces of virtio4_net" 1 "$(our_interfaces | wc -l)"
grep -q "faults for ever" /tmp/stuck.log || fail "the device host did not start: $(cat /tmp/stuck.log)"
sleep 1
kill -0 $host || fail "the device host's read returned: $(cat /tmp/stuck.log)"
dev=$(basename "$(readlink "/sys/class/net/$(our_interfaces)/device")")
(echo "$dev" >/sys/bus/virtio4/drivers/virtio4_net/unbind && touch /tmp/unbound) &
for _ in $(seq 100); do
	[ -e /tmp/unbound ] && break
	sleep 0.1
done
[ -e /tmp/unbound ] || fail "unbinding $dev hangs behind a device host stuck in a page fault"
echo "ok: $dev unbound while its device host is stuck in a page fault"
kill -0 $host || fail "the device host's read returned: $(cat /tmp/stuck.log)"
kill -9 $host
wait $host 2>/dev/null || true
for _ in $(seq 100); do
	[ -z "$(ls /sys/bus/virtio4/devices)" ] && break
	sleep 0.1
done
expect_eq "devices left on the virtio4 bus" 0 "$(ls /sys/bus/virtio4/devices | wc -l)"
rmmod virtio4_net && rmmod virtio4_copy || fail "unloading virtio4_net, virtio4_copy"
