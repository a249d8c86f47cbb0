# SPDX-License-Identifier: GPL-2.0
# Hostile device: a NIC whose device reports every received frame as 2 bytes long, shorter than
# the virtio-net header. Each frame is dropped and counted as a length error with a rate-limited
# log line; the other NIC of the pair is unaffected; both go away with their device host and
# nothing leaks.
# kernels: debug
# timeout: 180
. /tests/lib.sh

kmemleak_start
modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
dmesg -c >/dev/null
serve_net_pair --misbehave short
# rx_length_errors N: the counter of nsN's NIC.
rx_length_errors() {
	$IP netns exec ns$1 cat /sys/class/net/"$(eval echo \$NIC_$1)"/statistics/rx_length_errors
}
if in_ns ns1 ping -c 5 -i 0.2 -W 1 169.254.20.2 >/dev/null 2>&1 ||
	in_ns ns2 ping -c 5 -i 0.2 -W 1 169.254.20.1 >/dev/null 2>&1; then
	fail "pings crossed a NIC that receives only short frames"
fi
e1=$(rx_length_errors 1) e2=$(rx_length_errors 2)
echo "rx length errors: ns1 $e1, ns2 $e2"
# Exactly one of the two NICs (the device host's first device) receives short frames.
[ "$((e1 * e2))" = 0 ] && [ "$((e1 + e2))" -ge 1 ] || fail "rx length errors ns1 $e1, ns2 $e2"
echo "ok: short frames dropped and counted on one NIC only"
expect_log "the kernel's reason" "shorter than its headers"
stop_host
expect_eq "interfaces of virtio4_net left" 0 "$(our_interfaces | wc -l)"
rmmod virtio4_net && rmmod virtio4_copy || fail "unloading virtio4_net, virtio4_copy"
kmemleak_check
