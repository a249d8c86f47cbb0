# SPDX-License-Identifier: GPL-2.0
# Two interfaces of our network driver on the copying transport, joined back to back by the
# device host (virtio4-host net-pair), each in its own network namespace: 1000 pings with no
# loss, a TCP transfer (64 MiB; 16 on the debug kernel) whose sha256 matches on both ends, then at MTU 4000 pings of
# 3000 bytes, each frame spread over two receive buffers (mergeable buffers: the device host
# publishes a packet's buffers at once, and the driver takes them as one packet). Beside
# another guest the transfer once stalled for good: poll() told the device host a file was
# readable when the read() that had just run took its record, and the host blocked in its
# next read() of that file and never served the other one (KUnit case
# poll_readable_only_with_a_record; the device host now opens its files O_NONBLOCK).
# Then devices without an address of their own (net-pair --no-mac: no VIRTIO_NET_F_MAC, a
# control queue with CTRL_MAC_ADDR, and no unicast frame received but to the address the
# driver gave): each NIC tells its device the random address it chose, so pings pass both
# ways, and an address changed with ip link reaches the device as well (pings to the old one,
# from a stale neighbour entry, are dropped by the device). A device that never answers the
# command (--misbehave ctrl-silent, ctrl_timeout_ms=300) is not probed, with one log line.
# kernels: debug stock
# timeout: 400
. /tests/lib.sh

modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
serve_net_pair --mtu 4000

ns_reach 1
ns_ping_count 1 1000 -i 0.01

ns_transfer "$(by_kernel 64 16)" 280

for i in 1 2; do
	$IP -n ns$i link set "$(eval echo \$NIC_$i)" mtu 4000 || fail "MTU 4000 in ns$i"
done
ns_ping_count 1 50 -i 0.02 -s 3000
ns_ping_count 2 50 -i 0.02 -s 3000

echo "== devices without an address of their own (--no-mac)"
stop_host
ns_delete ns1 ns2 || fail "deleting the namespaces"
serve_net_pair --no-mac

# expect_device_macs: the addresses the two devices were given are the NICs' (either order).
expect_device_macs() {
	expect_eq "addresses the devices were given" \
		"$( (nic_mac 1; nic_mac 2) | sort | tr '\n' ' ')" \
		"$( (net_device_stat net0 mac; net_device_stat net1 mac) | sort | tr '\n' ' ')"
}

expect_device_macs
ns_reach 1
ns_ping_count 1 20 -i 0.05
ns_ping_count 2 20 -i 0.05
$IP -n ns2 link set "$NIC_2" address 02:00:00:00:09:02 || fail "a new address on NIC_2"
expect_device_macs
# ns1 still sends to the old address (no gratuitous ARP): the device drops those frames.
dropped=$(($(net_device_stat net0 mac_dropped) + $(net_device_stat net1 mac_dropped)))
expect_fail "pings to NIC_2's old address" in_ns ns1 ping -c 3 -i 0.2 -W 1 169.254.20.2
expect_eq "frames to NIC_2's old address the device dropped" 1 \
	$(($(net_device_stat net0 mac_dropped) + $(net_device_stat net1 mac_dropped) > dropped))
$IP -n ns1 neigh flush all || fail "flushing ns1's neighbours"
ns_reach 1
ns_ping_count 1 20 -i 0.05
stop_host
ns_delete ns1 ns2 || fail "deleting the namespaces"

echo "== a device without an address that never answers the command"
rmmod virtio4_net && modprobe virtio4_net ctrl_timeout_ms=300 ||
	fail "reloading virtio4_net with ctrl_timeout_ms=300"
dmesg -c >/dev/null
virtio4-host net-pair --no-mac --misbehave ctrl-silent >/tmp/net-pair.out &
HOST_PID=$!
for _ in $(seq 100); do
	[ "$(our_interfaces | wc -l)" = 1 ] && dmesg | grep -q "did not take the address" && break
	sleep 0.1
done
expect_log "the driver's reason" "did not take the address .* no answer in ctrl_timeout_ms.*: not probed"
expect_eq "interfaces of virtio4_net (the answering device's)" 1 "$(our_interfaces | wc -l)"
stop_host
expect_eq "interfaces of virtio4_net left" 0 "$(our_interfaces | wc -l)"
