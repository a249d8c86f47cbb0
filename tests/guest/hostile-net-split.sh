# SPDX-License-Identifier: GPL-2.0
# Hostile device: a NIC whose device spreads every received frame over 64-byte pieces of its
# buffers (virtio4-host --misbehave split), so a 1442-byte frame takes 23 buffers, more than an
# skb has fragments. Each such frame is dropped whole: counted once as a length error, its
# remaining buffers drained (ethtool -S rx0_drained), none of them parsed as a packet of its
# own (no frame error). Small frames (2 buffers) still cross; both NICs go
# away with their device host and nothing leaks.
# kernels: debug
# timeout: 180
. /tests/lib.sh

kmemleak_start
modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
serve_net_pair --misbehave split
ns_ping_count 1 5 -s 56
ns_ping_count 2 5 -s 56
# Ten large frames cross the splitting NIC: five requests one way, five replies the other.
in_ns ns1 ping -c 5 -i 0.2 -W 1 -s 1400 169.254.20.2 >/dev/null 2>&1 &&
	fail "large pings crossed a NIC that splits them over too many buffers"
in_ns ns2 ping -c 5 -i 0.2 -W 1 -s 1400 169.254.20.1 >/dev/null 2>&1 &&
	fail "large pings crossed a NIC that splits them over too many buffers"
split=0
for i in 1 2; do
	drained=$(nic_stat $i rx0_drained) length=$(nic_stat $i rx0_length_errors)
	frame=$(nic_stat $i rx0_frame_errors)
	echo "ns$i: drained $drained, length errors $length, frame errors $frame"
	expect_eq "frame errors on ns$i (leftover buffers parsed as packets)" 0 "$frame"
	[ "$drained" = 0 ] && continue
	split=$i
	expect_eq "large frames dropped on ns$i" 10 "$length"
	# 23 buffers a frame: 17 fragments' worth taken, the other 5 drained.
	expect_eq "buffers drained on ns$i" 50 "$drained"
done
[ "$split" != 0 ] || fail "no NIC drained a split frame"
echo "ok: ten split frames dropped whole on ns$split, nothing parsed from their leftovers"
ns_ping_count 1 5 -s 56
ns_ping_count 2 5 -s 56
stop_host
expect_eq "interfaces of virtio4_net left" 0 "$(our_interfaces | wc -l)"
rmmod virtio4_net && rmmod virtio4_copy || fail "unloading virtio4_net, virtio4_copy"
kmemleak_check
