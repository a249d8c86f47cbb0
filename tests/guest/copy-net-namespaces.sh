# SPDX-License-Identifier: GPL-2.0
# Two interfaces of our network driver on the copying transport, joined back to back by the
# device host (virtio4-host net-pair), each in its own network namespace: 1000 pings with no
# loss, a TCP transfer (64 MiB) whose sha256 matches on both ends, then at MTU 4000 pings of
# 3000 bytes, each frame spread over two receive buffers (mergeable buffers: the device host
# publishes a packet's buffers at once, and the driver takes them as one packet).
# kernels: debug stock
# alone: a 64 MiB TCP transfer on both cores; a neighbour's load makes its stall watchdog guess
# timeout: 400
. /tests/lib.sh

modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
serve_net_pair --mtu 4000

for _ in $(seq 30); do
	$IP netns exec ns1 ping -c 1 -W 1 169.254.20.2 >/dev/null 2>&1 && break
done
ns_ping_count 1 1000 -i 0.01

head -c 67108864 /dev/urandom >/tmp/data
expect_eq "size of the data" 67108864 "$(size_of /tmp/data)"
$IP netns exec ns2 sh -c 'timeout 300 nc -l -p 5001 </tmp/hold >/tmp/received' &
listener=$!
sleep 1
# net_state: what to look at when the transfer stalls: both NICs' counters and queues.
net_state() {
	local i
	for i in 1 2; do
		eval "$IP netns exec ns$i ethtool -S \$NIC_$i" | grep -v ': 0$'
	done
	grep -H . /sys/kernel/debug/virtio4/*/* 2>/dev/null | grep -vE ':(0|size .*)$'
}
if ! $IP netns exec ns1 timeout 280 nc 169.254.20.2 5001 </tmp/data; then
	net_state
	fail "sending 64 MiB from ns1 (stalled?)"
fi
wait $listener
expect_eq "bytes received in ns2" 67108864 "$(size_of /tmp/received)"
expect_eq "sha256 of 64 MiB from ns1 to ns2" "$(sha256sum </tmp/data | cut -d' ' -f1)" \
	"$(sha256sum </tmp/received | cut -d' ' -f1)"

for i in 1 2; do
	$IP -n ns$i link set "$(eval echo \$NIC_$i)" mtu 4000 || fail "MTU 4000 in ns$i"
done
ns_ping_count 1 50 -i 0.02 -s 3000
ns_ping_count 2 50 -i 0.02 -s 3000
