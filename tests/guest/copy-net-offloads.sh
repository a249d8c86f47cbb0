# SPDX-License-Identifier: GPL-2.0
# Checksum and TCP segmentation offload end to end: two of our NICs joined back to back by the
# device host (net-pair), each in its own network namespace. The device host's counters
# (SIGUSR1) tell what it carried: large frames (gso_carried) and partial checksums
# (csum_carried) handed on as they were sent, or frames it cut up (segmented) and checksums it
# completed (checksummed) for a NIC that did not negotiate taking them.
# 1. Offloads offered to both: ethtool -k shows them on; 256 MiB over IPv4 and 256 MiB back over
#    IPv6 match their sha256; both NICs received large frames and partial checksums as sent,
#    and the device host cut up or checksummed nothing.
# 2. Then ethtool -K tx off on NIC_1: 128 MiB from it arrive with no large frame and no partial
#    checksum at all, and match.
# 3. Offloads offered to device 0 only: NIC_2's side (device 1) shows them off in ethtool -k;
#    256 MiB each way match; device 1 received only frames the device host cut up and
#    checksummed, device 0 only plain ones (device 1 sends none).
# No header is refused as one its sender did not negotiate (bad_header), in any phase. On the
# debug kernel each transfer is 1/64 of the size given here (under KASAN and lockdep a
# transfer is many times slower; the stock kernel moves 256 MiB in about 15 s).
# kernels: debug stock
# timeout: 400
. /tests/lib.sh

modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
# Each transfer: MIB MiB (4 on the debug kernel), or half of that.
mib=$(by_kernel 256 4)

# expect_feature N FEATURE on|off: ethtool -k of NIC_N.
expect_feature() {
	expect_eq "$2 of NIC_$1" "$3" \
		"$(eval "in_ns ns$1 ethtool -k \$NIC_$1" | sed -n "s/^$2: \([a-z]*\).*/\1/p")"
}

# reach: wait until ns1 reaches ns2 over IPv4 and IPv6.
reach() {
	ns_reach 1
	ns_ping_count 1 20 -i 0.05
	ns_reach 2 "fe80::1%$NIC_2"
}

# no_bad_headers: neither device sent a header it had not negotiated.
no_bad_headers() {
	expect_pair_stat 1 bad_header -eq 0
	expect_pair_stat 2 bad_header -eq 0
}

echo "== offloads offered to both devices"
serve_net_pair --offloads 0,1
reach
for i in 1 2; do
	expect_feature $i tx-checksumming on
	expect_feature $i rx-checksumming on
	expect_feature $i tcp-segmentation-offload on
done
ns_transfer $mib 200 1
ns_transfer $mib 200 2 6
for i in 1 2; do
	expect_pair_stat $i gso_carried -gt 0 csum_carried -gt 0 segmented -eq 0 checksummed -eq 0
done
no_bad_headers

echo "== ethtool -K tx off on NIC_1"
in_ns ns1 ethtool -K "$NIC_1" tx off || fail "ethtool -K $NIC_1 tx off"
expect_feature 1 tcp-segmentation-offload off
gso=$(net_pair_stat 2 gso_carried)
csum=$(net_pair_stat 2 csum_carried)
ns_transfer $((mib / 2)) 200 1
expect_pair_stat 2 gso_carried -eq "$gso" csum_carried -eq "$csum"
no_bad_headers

stop_host
ns_delete ns1 ns2 || fail "removing the namespaces"

echo "== offloads offered to device 0 only"
serve_net_pair --offloads 0
reach
# NIC_$one is device 1's, NIC_$zero device 0's.
one=2 zero=1
[ "$(net_pair_device 2)" = net1 ] || one=1 zero=2
expect_feature $one tcp-segmentation-offload off
expect_feature $one rx-checksumming off
expect_feature $zero tcp-segmentation-offload on
ns_transfer $mib 200 $zero
ns_transfer $mib 200 $one 6
expect_pair_stat $one gso_carried -eq 0 csum_carried -eq 0 segmented -gt 0 checksummed -gt 0
expect_pair_stat $zero gso_carried -eq 0 csum_carried -eq 0 segmented -eq 0 checksummed -eq 0
no_bad_headers
stop_host
