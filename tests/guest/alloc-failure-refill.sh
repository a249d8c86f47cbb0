# SPDX-License-Identifier: GPL-2.0
# Receive-refill allocation failures (fault injection on the debug kernel): two of our NICs on
# one QEMU hub, each in its own network namespace, ping each other while failslab and
# fail_page_alloc fail P% of the kernel's atomic allocations, P = 5, 20 and 50 (at more, hardly
# a packet gets as far as our receive path), then 100% while 1000 pings flood the receive
# rings (they run dry unless the refill is retried from process context). The receive refill
# in NAPI runs out of memory (counted by ethtool -S rx0_alloc_failures; the sweep must count
# some) and retries from process context; pings may be lost meanwhile. After each step, with injection off, every ping
# is answered. Then the interfaces go down and come up during injection (a refill failing as
# the interface closes), the modules unload, nothing leaks (kmemleak), nothing splats (runner).
# Over the copying transport the two NICs are a device host's net-pair instead.
# kernels: debug
# transports: pci copy
# timeout: 420
# qemu: -netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1,mac=52:54:00:00:20:01
# qemu: -netdev hubport,id=n2,hubid=0 -device virtio-net-pci,netdev=n2,mac=52:54:00:00:20:02
. /tests/lib.sh

dbg=/sys/kernel/debug
# inject P: fail P% of the kernel's atomic allocations from now on (0: stop).
inject() {
	local f
	for f in failslab fail_page_alloc; do
		echo "$1" >$dbg/$f/probability
	done
}
for f in failslab fail_page_alloc; do
	echo 0 >$dbg/$f/verbose	# a forced failure would print a stack trace
	echo Y >$dbg/$f/ignore-gfp-wait	# only allocations that cannot sleep fail
	echo -1 >$dbg/$f/times
done
echo 0 >$dbg/fail_page_alloc/min-order	# receive buffers are single pages
inject 0
kmemleak_start
if [ "$TRANSPORT" = copy ]; then
	modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_net"
	serve_net_pair
else
	modprobe virtio4_pci && modprobe virtio4_net || fail "loading virtio4_net"
	nics_in_namespaces
fi
ns_ping_count 1 20 -i 0.05

start=$(($(nic_stat 1 rx0_alloc_failures) + $(nic_stat 2 rx0_alloc_failures)))
for p in 5 20 50; do
	before=$(($(nic_stat 1 rx0_alloc_failures) + $(nic_stat 2 rx0_alloc_failures)))
	inject $p
	out=$(in_ns ns1 ping -c 300 -i 0.01 -W 1 169.254.20.2 2>&1 || true)
	inject 0
	after=$(($(nic_stat 1 rx0_alloc_failures) + $(nic_stat 2 rx0_alloc_failures)))
	echo "ok: $p% of atomic allocations failing: $(echo "$out" | answers) of 300 pings" \
		"answered, $((after - before)) receive refills ran out of memory"
	ns_ping_count 1 50 -i 0.02
	ns_ping_count 2 50 -i 0.02
done
[ $after -gt $start ] || fail "no receive refill ran out of memory in the sweep"

# Every atomic allocation failing: the receive rings run dry unless the refill is retried from
# process context (where allocations may sleep, and do not fail here). Then, with no other
# traffic to wake NAPI, every ping must be answered.
inject 100
in_ns ns1 ping -c 1000 -i 0.002 -W 1 169.254.20.2 >/dev/null 2>&1 || true
inject 0
echo "ok: 1000 pings sent with every atomic allocation failing," \
	"$(($(nic_stat 1 rx0_alloc_failures) + $(nic_stat 2 rx0_alloc_failures) - after)) receive refills ran out of memory"
# The flood may leave the neighbour entries to be resolved again (seen once over the copying
# transport: 42 of 50 answered at once): reach the other side first, then count.
ns_reach 1
ns_ping_count 1 50 -i 0.02

# Close and open the interfaces while refills fail: a poll that fails to refill as the interface
# closes must not leave a refill work behind (it would wait forever on the disabled NAPI).
inject 20
in_ns ns1 ping -i 0.01 169.254.20.2 >/dev/null 2>&1 &
flood=$!
for _ in $(seq 20); do
	in_ns ns2 busybox ip link set "$NIC_2" down && in_ns ns2 busybox ip link set "$NIC_2" up ||
		fail "down and up of $NIC_2 while refills fail"
done
kill $flood
inject 0
ns_reach 1
ns_ping_count 1 50 -i 0.02
echo "ok: 20 down/up cycles while refills failed"

ns_delete ns1 ns2 || fail "deleting the namespaces"
if [ "$TRANSPORT" = copy ]; then
	stop_host
	rmmod virtio4_net && rmmod virtio4_copy || fail "unloading"
else
	rmmod virtio4_net && rmmod virtio4_pci || fail "unloading"
fi
kmemleak_check
