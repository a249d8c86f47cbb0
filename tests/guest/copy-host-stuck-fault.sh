# SPDX-License-Identifier: GPL-2.0
# A device host whose memory faults for ever (userfaultfd, never resolved: a FUSE mapping or
# one of the very disk it serves would do the same), first in read() (the records'
# destination), then in write() (a receive completion's payload): our NIC binds to its
# device, the device host's call stays in the page fault, and unbinding the NIC (which resets
# the device and deletes its queues) still finishes within 10 s: the copying transport never
# touches user memory with the lock its reset needs. Killing the device host then removes
# the device.
# kernels: stock
# time-bound: unbinding must finish within 10 s
# timeout: 150
. /tests/lib.sh

# stuck MODE: one device host stuck in MODE (read or write) while its NIC is unbound.
stuck() {
	local host dev nic
	rm -f /tmp/unbound
	virtio4-bad-input host-stuck "$1" >/tmp/stuck.log 2>&1 &
	host=$!
	for _ in $(seq 100); do
		[ "$(our_interfaces | wc -l)" = 1 ] && break
		sleep 0.1
	done
	expect_eq "interfaces of virtio4_net" 1 "$(our_interfaces | wc -l)"
	nic=$(our_interfaces)
	# Receive buffers are posted when the link goes up.
	$IP link set "$nic" up || fail "link up on $nic"
	for _ in $(seq 100); do
		grep -q "faults for ever" /tmp/stuck.log && break
		sleep 0.1
	done
	grep -q "faults for ever" /tmp/stuck.log ||
		fail "the device host did not start ($1): $(cat /tmp/stuck.log)"
	sleep 1
	kill -0 $host || fail "the device host's $1 returned: $(cat /tmp/stuck.log)"
	dev=$(basename "$(readlink "/sys/class/net/$nic/device")")
	(echo "$dev" >/sys/bus/virtio4/drivers/virtio4_net/unbind && touch /tmp/unbound) &
	for _ in $(seq 100); do
		[ -e /tmp/unbound ] && break
		sleep 0.1
	done
	[ -e /tmp/unbound ] || fail "unbinding $dev hangs behind a device host stuck in a page fault ($1)"
	echo "ok: $dev unbound while its device host is stuck in a page fault in $1()"
	kill -0 $host || fail "the device host's $1 returned: $(cat /tmp/stuck.log)"
	kill -9 $host
	wait $host 2>/dev/null || true
	for _ in $(seq 100); do
		[ -z "$(ls /sys/bus/virtio4/devices)" ] && break
		sleep 0.1
	done
	expect_eq "devices left on the virtio4 bus" 0 "$(ls /sys/bus/virtio4/devices | wc -l)"
}

modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
stuck read
stuck write
rmmod virtio4_net && rmmod virtio4_copy || fail "unloading virtio4_net, virtio4_copy"
