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
