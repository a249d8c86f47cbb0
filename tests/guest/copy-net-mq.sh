# SPDX-License-Identifier: GPL-2.0
# Several queue pairs (VIRTIO_NET_F_MQ) with 4 vCPUs: the device host's net-pair offers 4 pairs,
# then 2 (--queues N; it receives each new TCP or UDP flow on the next pair in use, in turn).
# Each NIC uses one pair per CPU up to what the device has (ethtool -l), tells the device
# (the device host reports the pairs in use), and sends on pair "CPU modulo pairs" (XPS, in
# sysfs). Four iperf3 clients, each pinned to its own CPU, send from ns1 to ns2 at once: every
# transmit queue of NIC_1 and every receive queue of NIC_2 carries packets (ethtool -S txN, rxN).
# Under a 12 s iperf3 TCP stream, which must end well, both NICs go from 4 pairs to 1 and back
# (ethtool -L; the device host follows), and then 8 MiB cross with matching sha256; 0 pairs and
# more than the device has are refused.
# Nothing leaks when the NICs go away with their device host.
# kernels: debug stock
# smp: 4
# alone: 4 vCPUs, two more than the host has cores: a neighbour would starve them
# timeout: 600
. /tests/lib.sh

kmemleak_start
modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
expect_eq "CPUs" 4 "$(grep -c ^processor /proc/cpuinfo)"

# channels N: "MAX CURRENT" combined channels of NIC_N (ethtool -l).
channels() {
	eval "in_ns ns$1 ethtool -l \$NIC_$1" | awk '/^Combined:/ { printf "%s%s", sep, $2; sep = " " }'
}

# expect_pairs PAIRS: both NICs and their devices use PAIRS pairs.
expect_pairs() {
	local i
	for i in 1 2; do
		expect_eq "pairs NIC_$i uses (ethtool -l: maximum, current)" "$MAX $1" "$(channels $i)"
		expect_pair_stat $i pairs -eq "$1"
	done
}

# expect_xps PAIRS: on NIC_1, transmit queue Q serves the CPUs C with C % PAIRS = Q.
expect_xps() {
	local q want
	for q in $(seq 0 $(($1 - 1))); do
		want=0
		for c in 0 1 2 3; do
			[ $((c % $1)) = "$q" ] && want=$((want | 1 << c))
		done
		expect_eq "CPUs of NIC_1's tx-$q (xps_cpus)" "$(printf %x $want)" \
			"$($IP netns exec ns1 cat /sys/class/net/$NIC_1/queues/tx-$q/xps_cpus)"
	done
}

# spread PAIRS: four iperf3 clients in ns1, pinned to CPUs 0-3, send to four servers in ns2
# for 3 s at once; each must finish, and every queue in use carries packets.
spread() {
	local c pids="" q
	for c in 0 1 2 3; do
		in_ns ns2 iperf3 -s -1 -p 520$c >/tmp/iperf-s$c.log 2>&1 &
	done
	for _ in $(seq 50); do
		[ "$(in_ns ns2 cat /proc/net/tcp6 /proc/net/tcp | grep -c ':145[0-3] [0-9A-F:]* 0A')" = 4 ] &&
			break
		sleep 0.1
	done
	for c in 0 1 2 3; do
		in_ns ns1 taskset -c $c iperf3 -c 169.254.20.2 -p 520$c -t 3 >/tmp/iperf-c$c.log 2>&1 &
		pids="$pids $!"
	done
	for c in $pids; do
		wait "$c" || fail "an iperf3 client failed: $(tail -n 3 /tmp/iperf-c*.log)"
	done
	grep -h receiver /tmp/iperf-c*.log
	for q in $(seq 0 $(($1 - 1))); do
		[ "$(nic_stat 1 tx${q}_packets)" -gt 0 ] || fail "NIC_1 sent nothing on tx$q"
		[ "$(nic_stat 2 rx${q}_packets)" -gt 0 ] || fail "NIC_2 received nothing on rx$q"
		echo "ok: pair $q: NIC_1 sent $(nic_stat 1 tx${q}_packets), NIC_2 received $(nic_stat 2 rx${q}_packets) packets"
	done
}

# set_pairs N PAIRS: ethtool -L NIC_N combined PAIRS.
set_pairs() {
	eval "in_ns ns$1 ethtool -L \$NIC_$1 combined $2" || fail "ethtool -L NIC_$1 combined $2"
}

MAX=4
serve_net_pair --queues 4
expect_pairs 4
expect_xps 4
ns_reach 1
spread 4
for bad in 0 5; do
	expect_fail "ethtool -L combined $bad" eval "in_ns ns1 ethtool -L \$NIC_1 combined $bad"
done
in_ns ns2 iperf3 -s -1 -p 5201 >/tmp/iperf-s.log 2>&1 &
sleep 1
in_ns ns1 iperf3 -c 169.254.20.2 -p 5201 -t 12 -i 2 >/tmp/iperf-c.log 2>&1 &
stream=$!
sleep 3
set_pairs 1 1
set_pairs 2 1
expect_pairs 1
sleep 3
set_pairs 1 4
set_pairs 2 4
expect_pairs 4
wait $stream || fail "the TCP stream across the changes of pairs: $(tail -n 5 /tmp/iperf-c.log)"
cat /tmp/iperf-c.log
ns_transfer 8 120
stop_host
ns_delete ns1 ns2 || fail "deleting the namespaces"

MAX=2
serve_net_pair --queues 2
expect_pairs 2
expect_xps 2
ns_reach 1
spread 2
stop_host
ns_delete ns1 ns2 || fail "deleting the namespaces"
expect_eq "interfaces of virtio4_net left" 0 "$(our_interfaces | wc -l)"
rmmod virtio4_net && rmmod virtio4_copy || fail "unloading virtio4_net, virtio4_copy"
kmemleak_check
