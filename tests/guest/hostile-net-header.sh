# SPDX-License-Identifier: GPL-2.0
# Hostile device: receive headers that lie about every frame, in the fields the stack trusts
# (virtio4-host net-pair --offloads 0,1 --misbehave MODE; the offloads make our driver
# negotiate GUEST_CSUM and GUEST_TSO4/6, so that the fields mean something): gso-not-tcp
# (TCPv4 GSO on every IPv4 frame that is not TCP: ARP still resolves, the pings are marked),
# gso-size-0 and csum-past-end (every frame). For each, the lying device's NIC drops what it
# lies about, counted in ethtool -S rx0_header_errors with a log line that names the lie: each
# of 5 pings sent to it (its address resolved by hand) is one more header error, none crosses
# into it, and the other NIC counts no header error. First, as
# the control, the same pair without a lie carries pings with no header error. Without the
# driver's own check (drivers/net_hdr.c), 6.1's virtio_net_hdr_to_skb() alone lets gso-not-tcp
# through: the pings were answered (seen with the check left out). Both NICs go away with their
# device host each time, the modules unload and nothing leaks.
# kernels: debug
# timeout: 300
. /tests/lib.sh

kmemleak_start
modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"

# pair MODE: the device host's pair with offloads, net0 misbehaving as MODE ("none": not at
# all). Sets LIAR (N of NIC_N on net0) and OTHER.
pair() {
	dmesg -c >/dev/null
	serve_net_pair --offloads 0,1 --misbehave "$1"
	LIAR=1
	[ "$(net_pair_device 1)" = net0 ] || LIAR=2
	OTHER=$((3 - LIAR))
	# TSO4 (bit 7) and GUEST_CSUM (bit 1) negotiated: the lies reach the header check.
	for d in /sys/bus/virtio4/devices/*; do
		expect_eq "GUEST_CSUM and GUEST_TSO4 of $(basename "$d")" 1 \
			$(( $(cat "$d/features") >> 7 & $(cat "$d/features") >> 1 & 1 ))
	done
}

unpair() {
	stop_host
	ns_delete ns1 ns2 || fail "deleting the namespaces"
}

pair none
ns_reach "$OTHER" 169.254.20.$LIAR
ns_ping_count "$OTHER" 5 -i 0.05
ns_ping_count "$LIAR" 5 -i 0.05
expect_eq "header errors of a pair that does not lie" "0 0" "$(nic_stat 1 rx0_header_errors) $(nic_stat 2 rx0_header_errors)"
unpair

for lie in gso-not-tcp:"claims TCPv4 segmentation of a frame that is not TCP over IPv4" \
	gso-size-0:"claims segmentation into segments of 0 bytes" \
	csum-past-end:"places the checksum outside the frame"; do
	mode=${lie%%:*}
	pair "$mode"
	# The sender's neighbour entry for the liar set by hand: where every frame lies, the ARP
	# exchange fails too, and the pings must still reach the liar's NIC as IPv4 frames.
	mac=$(nic_mac $LIAR)
	[ -n "$mac" ] || fail "the MAC of NIC_$LIAR ($mode)"
	eval "\$IP -n ns$OTHER neigh replace 169.254.20.$LIAR lladdr $mac dev \$NIC_$OTHER nud permanent" ||
		fail "a permanent neighbour entry for the liar ($mode)"
	before=$(nic_stat $LIAR rx0_header_errors)
	in_ns ns$OTHER ping -c 5 -i 0.2 -W 1 169.254.20.$LIAR >/dev/null 2>&1 &&
		fail "pings crossed into a NIC whose device lies ($mode)"
	errors=$(($(nic_stat $LIAR rx0_header_errors) - before))
	[ "$errors" -ge 5 ] ||
		fail "$errors header errors counted for 5 pings on the NIC whose device lies ($mode)"
	expect_eq "header errors on the other NIC ($mode)" 0 "$(nic_stat $OTHER rx0_header_errors)"
	echo "ok: $mode: the 5 pings, and $((errors - 5)) frames more, dropped as header errors on NIC_$LIAR"
	expect_log "the reason for $mode" "virtio-net header ${lie#*:}"
	unpair
done

expect_eq "interfaces of virtio4_net left" 0 "$(our_interfaces | wc -l)"
rmmod virtio4_net && rmmod virtio4_copy || fail "unloading virtio4_net, virtio4_copy"
kmemleak_check
