# SPDX-License-Identifier: GPL-2.0
# Hostile device: a NIC whose device receives every frame on the last of its 4 queue pairs
# (virtio4-host --queues 4 --misbehave stray-queue), where the driver told it to use 2 (one
# per vCPU): the spec forbids a receive queue above the pairs set. With receive packet
# steering on (rps_cpus), 6.1's get_rps_cpu() WARNs "received packet on queue 3, but number
# of RX queues is 2" for a frame that carries such a queue number (panic_on_warn: the run
# fails); the driver records no queue the stack does not have, so the frames are taken as
# any other: pings and 4 MiB of TCP (1 on the debug kernel) cross, and rx3 counts them.
# kernels: debug stock
# timeout: 180
. /tests/lib.sh

kmemleak_start
modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
expect_eq "CPUs" 2 "$(grep -c ^processor /proc/cpuinfo)"
serve_net_pair --queues 4 --misbehave stray-queue
# NIC_$stray is the misbehaving device's (net0).
stray=1
[ "$(net_pair_device 1)" = net0 ] || stray=2
for i in 1 2; do
	expect_eq "NIC_$i's pairs in use (ethtool -l: maximum, current)" "4 2" \
		"$(channels $i)"
	# RPS on every receive queue the stack has (ip netns exec mounts the namespace's sysfs).
	eval "nic=\$NIC_$i"
	$IP netns exec ns$i sh -c "for f in /sys/class/net/$nic/queues/rx-*/rps_cpus; do
		echo 3 >\$f || exit 1; done" || fail "turning RPS on for NIC_$i"
done
ns_reach 1
ns_ping_count 1 20 -i 0.05
ns_ping_count 2 20 -i 0.05
ns_transfer "$(by_kernel 4 1)" 120 $((3 - stray))
rx3=$(nic_stat $stray rx3_packets)
[ "$rx3" -gt 20 ] || fail "NIC_$stray received $rx3 packets on rx3 (its device uses no other)"
echo "ok: NIC_$stray received $rx3 packets on rx3, a queue above the pairs in use"
stop_host
expect_eq "interfaces of virtio4_net left" 0 "$(our_interfaces | wc -l)"
rmmod virtio4_net && rmmod virtio4_copy || fail "unloading virtio4_net, virtio4_copy"
kmemleak_check
