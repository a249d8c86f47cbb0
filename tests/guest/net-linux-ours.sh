# SPDX-License-Identifier: GPL-2.0
# Two guests across a wire, guest 0 on Linux's virtio_net, guest 1 on our driver:
# 1000 pings at 10 ms with no loss, full-size and jumbo frames (the device offers an MTU of
# 9000), a 256 MiB TCP transfer (64 MiB on the slower debug kernel) whose sha256 matches on
# both ends, and iperf3 TCP both ways and UDP.
# kernels: debug
# (Interop runs on the debug kernel, where sanitizers watch; ours-to-ours also runs on stock.)
# guests: 2
# timeout: 420
# qemu: -device virtio-net-pci,netdev=wire,mac=52:54:00:12:34:5$GUEST,host_mtu=9000
. /tests/lib.sh

[ "$GUEST" = 0 ] && driver=linux || driver=ours
net_up $driver
peer_barrier "$PEER"
ping_count 1000 -i 0.01
ping_count 20 -i 0.05 -s 1472
ip link set "$NETDEV" mtu 9000 || fail "MTU 9000"
peer_barrier "$PEER"
ping_count 20 -i 0.05 -s 8972
peer_barrier "$PEER"
if on_debug_kernel; then
	tcp_transfer 64
else
	tcp_transfer 256
fi
peer_barrier "$PEER"
iperf3_runs
peer_barrier "$PEER"
