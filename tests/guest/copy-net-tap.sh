# SPDX-License-Identifier: GPL-2.0
# The device host's net-tap: one of our NICs bridged to a TAP of the same guest, as a
# hypervisor's TAP backend does. Our NIC in ns1 (169.254.20.1), the TAP in ns2 (169.254.20.2).
# 1. With offloads (virtio4-host net-tap --offloads 0): the TAP carries virtio-net headers both
#    ways (IFF_VNET_HDR) and takes what our driver negotiated (TUNSETOFFLOAD), so the TAP gets
#    TSO on: 16 MiB each way over TCP match their sha256, the device host wrote large frames
#    from our NIC to the TAP as they were (tap_gso) and handed large frames from the TAP to our
#    NIC (gso_carried), and refused no header (bad_header).
# 2. Without (no header on the TAP, no offload offered): 4 MiB each way match, and no large
#    frame crossed either way.
# On the debug kernel each transfer is a quarter of the size given here.
# kernels: debug stock
# timeout: 300
. /tests/lib.sh

modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
mib=$(by_kernel 16 4)

# bridge TAP [OPTIONS]: a new TAP, and the device host's net-tap OPTIONS bridging one of our
# NICs to it; our NIC goes to ns1, the TAP to ns2 (as nics_in_namespaces; sets NIC_1, NIC_2,
# HOST_PID). The device host's output goes where net_pair_stat reads it.
bridge() {
	local tap=$1 nic=
	shift
	modprobe tun || fail "loading tun"	# a module on the stock kernel: /dev/net/tun with it
	$IP tuntap add dev "$tap" mode tap || fail "creating $tap"
	virtio4-host net-tap "$@" "$tap" >/tmp/net-pair.out &
	HOST_PID=$!
	for _ in $(seq 100); do
		nic=$(our_interfaces | head -n 1)
		[ -n "$nic" ] && break
		sleep 0.1
	done
	[ -n "$nic" ] || fail "no interface of virtio4_net for net-tap $*"
	move_to_ns "$nic" ns1 169.254.20.1/16 fe80::1/64 || fail "moving $nic to ns1"
	move_to_ns "$tap" ns2 169.254.20.2/16 fe80::2/64 || fail "moving $tap to ns2"
	NIC_1=$nic NIC_2=$tap
	echo "ok: $nic (ns1) bridged to $tap (ns2) by net-tap $*"
	ns_reach 1
	ns_ping_count 1 10 -i 0.05
}

bridge tap0 --offloads 0
expect_eq "TSO on the TAP (from what our driver negotiated)" on \
	"$(in_ns ns2 ethtool -k tap0 | sed -n 's/^tcp-segmentation-offload: \([a-z]*\).*/\1/p')"
ns_transfer $mib 120 1
ns_transfer $mib 120 2
expect_pair_stat 1 tap_gso -gt 0 gso_carried -gt 0 bad_header -eq 0
stop_host
ns_delete ns1 ns2 || fail "deleting the namespaces"

bridge tap1
ns_transfer $((mib / 4)) 120 1
ns_transfer $((mib / 4)) 120 2
expect_pair_stat 1 tap_gso -eq 0 gso_carried -eq 0 delivered -gt 0
stop_host
ns_delete ns1 ns2 || fail "deleting the namespaces"
rmmod virtio4_net && rmmod virtio4_copy || fail "unloading virtio4_net, virtio4_copy"
