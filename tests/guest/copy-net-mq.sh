# SPDX-License-Identifier: GPL-2.0
# Several queue pairs (VIRTIO_NET_F_MQ) with 4 vCPUs: the device host's net-pair offers 4 pairs,
# then 2 (--queues N; it receives each new TCP or UDP flow on the next pair in use, in turn).
# Each NIC uses one pair per CPU up to what the device has (ethtool -l), tells the device
# (the device host reports the pairs in use), and sends on pair "CPU modulo pairs" (XPS, in
# sysfs). Four iperf3 clients, each pinned to its own CPU, send from ns1 to ns2 at once: every
# transmit queue of NIC_1 and every receive queue of NIC_2 carries packets (ethtool -S txN, rxN).
# Under a 12 s iperf3 TCP stream, which must end well, both NICs go from 4 pairs to 1 and back
# (ethtool -L; the device host follows), and then 8 MiB (2 on the debug kernel) cross with
# matching sha256; 0 pairs and more than the device has are refused.
# Then RSS (--rss: VIRTIO_NET_F_RSS; the device host hashes each frame with the driver's key
# and puts it on the queue the driver's table gives): the table spreads over the 4 pairs and
# the device holds what ethtool -x shows (its table's entries per queue, its key); with the
# table on queue 3 alone (ethtool -X weight 0 0 0 1) four TCP flows reach NIC_2 on rx3 only
# (rx0 takes what has no hash, ARP; rx1 and rx2 nothing), on queues 0 and 1 alone with
# "equal 2"; a new key reaches the device; fewer pairs than the user's table uses are refused,
# and the default table follows the pairs (-L 2, then 4); with TCP over IPv4 hashed over the
# addresses alone (ethtool -N rx-flow-hash tcp4 sd) the device's hash types lose TCPv4 and
# the four flows share one queue; a hash function other than Toeplitz is refused. A device
# offering a table smaller than the spec's minimum (--misbehave rss-small-table) gets one log
# line and multiqueue without RSS.
# Nothing leaks when the NICs go away with their device host.
# kernels: debug stock
# smp: 4
# timeout: 600
. /tests/lib.sh

kmemleak_start
modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
expect_eq "CPUs" 4 "$(grep -c ^processor /proc/cpuinfo)"

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

# four_flows [SECONDS]: four iperf3 clients in ns1, pinned to CPUs 0-3, send to four servers in
# ns2 for SECONDS (default 3) at once (four TCP flows); each must finish.
four_flows() {
	local c pids=""
	for c in 0 1 2 3; do
		in_ns ns2 iperf3 -s -1 -p 520$c >/tmp/iperf-s$c.log 2>&1 &
	done
	for _ in $(seq 50); do
		[ "$(in_ns ns2 cat /proc/net/tcp6 /proc/net/tcp | grep -c ':145[0-3] [0-9A-F:]* 0A')" = 4 ] &&
			break
		sleep 0.1
	done
	for c in 0 1 2 3; do
		in_ns ns1 taskset -c $c iperf3 -c 169.254.20.2 -p 520$c -t "${1:-3}" >/tmp/iperf-c$c.log 2>&1 &
		pids="$pids $!"
	done
	for c in $pids; do
		wait "$c" || fail "an iperf3 client failed: $(tail -n 3 /tmp/iperf-c*.log)"
	done
	grep -h receiver /tmp/iperf-c*.log
}

# added BEFORE AFTER NAME: how much counter NAME grew from one nic_stats snapshot to the other.
added() {
	echo $(( $(echo "$2" | sed -n "s/^ *$3: //p") - $(echo "$1" | sed -n "s/^ *$3: //p") ))
}

# spread PAIRS: four flows (four_flows), and every queue in use carries their packets, the
# pings and neighbour traffic before them (spread over the queues too) counted out: more than
# 50 on each transmit queue (a client's connections leave on its CPU's queue, and a 3 s flow
# carries hundreds), some on each receive queue (the device host gives each new connection,
# an iperf3 client's control one too, the next queue: a queue may get control connections only).
spread() {
	local q tx1 rx2 tx1_after rx2_after tx rx
	tx1=$(nic_stats 1) rx2=$(nic_stats 2)
	four_flows
	tx1_after=$(nic_stats 1) rx2_after=$(nic_stats 2)
	for q in $(seq 0 $(($1 - 1))); do
		tx=$(added "$tx1" "$tx1_after" tx${q}_packets)
		rx=$(added "$rx2" "$rx2_after" rx${q}_packets)
		[ "$tx" -gt 50 ] || fail "NIC_1 sent $tx packets of the flows on tx$q"
		[ "$rx" -gt 0 ] || fail "NIC_2 received $rx packets of the flows on rx$q"
		echo "ok: pair $q: NIC_1 sent $tx, NIC_2 received $rx packets of the four flows"
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
ns_transfer "$(by_kernel 8 2)" 120
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

echo "== RSS"
# rss_table: of NIC_2's ethtool -x, the table's entries per queue ("n0,n1,n2,n3").
rss_table() {
	in_ns ns2 ethtool -x "$NIC_2" | awk '
		/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) n[$i]++ }
		END { printf "%d,%d,%d,%d\n", n[0], n[1], n[2], n[3] }'
}

# hash_fields: the fields NIC_2 hashes TCP over IPv4 on (ethtool -n rx-flow-hash), on one line.
hash_fields() {
	in_ns ns2 ethtool -n "$NIC_2" rx-flow-hash tcp4 | grep -E '^(IP|L4)' | tr '\n' ' ' |
		sed 's/ $//'
}

# expect_rss TABLE: ethtool -x and NIC_2's device agree on the table (entries per queue,
# TABLE) and the key.
expect_rss() {
	expect_eq "NIC_2's table, entries per queue (ethtool -x)" "$1" "$(rss_table)"
	expect_eq "NIC_2's table in its device" "$1" "$(net_pair_stat 2 rss_table)"
	expect_eq "NIC_2's key in its device" "$(rss_key_of 2)" "$(net_pair_stat 2 rss_key)"
}

# received: NIC_2's packets received per queue, "rx0 rx1 rx2 rx3" (one ethtool -S).
received() {
	in_ns ns2 ethtool -S "$NIC_2" |
		awk '/^ *rx[0-3]_packets:/ { n[substr($1, 3, 1)] = $2 }
			END { print n[0] + 0, n[1] + 0, n[2] + 0, n[3] + 0 }'
}

# The RSS phases' flows: 1 s (the debug kernel's: 2 s, a few hundred packets).
FLOW_SECONDS=$(by_kernel 1 2)

# flows_reach WHAT Q...: four flows (four_flows) reach NIC_2 on queues Q... only: each other
# queue takes no packet but rx0, which may take a few without a hash (ARP, neighbour
# discovery: the unclassified queue).
flows_reach() {
	local what=$1 before after q n total=0
	shift
	before=$(received)
	four_flows "$FLOW_SECONDS"
	after=$(received)
	for q in 0 1 2 3; do
		n=$(($(echo "$after" | cut -d' ' -f$((q + 1))) - $(echo "$before" | cut -d' ' -f$((q + 1)))))
		case " $* " in
		*" $q "*) total=$((total + n)) ;;
		*) [ "$n" -eq 0 ] || { [ "$q" = 0 ] && [ "$n" -lt 20 ]; } ||
			fail "$what: rx$q took $n packets (queues $* only)" ;;
		esac
	done
	[ "$total" -gt 200 ] || fail "$what: queues $* took only $total packets"
	echo "ok: $what: $total packets on queues $*, per queue before and after: $before / $after"
}

MAX=4
serve_net_pair --queues 4 --rss
expect_pairs 4
expect_pair_stat 2 rss_configs -gt 0
expect_rss 32,32,32,32
ns_reach 1
in_ns ns2 ethtool -X "$NIC_2" weight 0 0 0 1 || fail "ethtool -X weight 0 0 0 1"
expect_rss 0,0,0,128
flows_reach "four flows, the table on queue 3" 3
in_ns ns2 ethtool -X "$NIC_2" equal 2 || fail "ethtool -X equal 2"
expect_rss 64,64,0,0
flows_reach "four flows, the table on queues 0 and 1" 0 1
key=6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30
key=$key:f2:0c:6a:42:b7:3b:be:ac:01:fa
in_ns ns2 ethtool -X "$NIC_2" hkey $key || fail "ethtool -X hkey"
expect_eq "NIC_2's new key in its device" "$(echo $key | tr -d :)" "$(net_pair_stat 2 rss_key)"
expect_fail "ethtool -L combined 1 under a table that uses queue 1" \
	in_ns ns2 ethtool -L "$NIC_2" combined 1
in_ns ns2 ethtool -X "$NIC_2" default || fail "ethtool -X default"
set_pairs 2 2
expect_rss 64,64,0,0
set_pairs 2 4
expect_rss 32,32,32,32
expect_eq "NIC_2's hash of TCP over IPv4" \
	"IP SA IP DA L4 bytes 0 & 1 [TCP/UDP src port] L4 bytes 2 & 3 [TCP/UDP dst port]" \
	"$(hash_fields)"
# hash_types: the hash types NIC_2's device was given (VIRTIO_NET_RSS_HASH_TYPE_*), in decimal.
hash_types() {
	local hex
	hex=$(net_pair_stat 2 rss_types)
	[ -n "$hex" ] || fail "the device host reported no rss_types"
	echo $((0x$hex))
}

types=$(hash_types)
[ $((types & 2)) = 2 ] || fail "NIC_2's device hashes no TCP over IPv4 ports (types $types)"
in_ns ns2 ethtool -N "$NIC_2" rx-flow-hash tcp4 sd || fail "ethtool -N rx-flow-hash tcp4 sd"
expect_eq "NIC_2's hash of TCP over IPv4, addresses only" "IP SA IP DA" "$(hash_fields)"
# The device's hash types lose VIRTIO_NET_RSS_HASH_TYPE_TCPv4 (bit 1) and keep the rest.
expect_eq "NIC_2's device's hash types" $((types & ~2)) "$(hash_types)"
before=$(received)
four_flows "$FLOW_SECONDS"
after=$(received)
busy=$(echo "$before $after" | awk '{ for (q = 1; q <= 4; q++) if ($(q + 4) - $q > 100) n++ } END { print n + 0 }')
expect_eq "queues that took four flows hashed over the addresses alone ($before / $after)" 1 "$busy"
expect_fail "ethtool -X hfunc xor" in_ns ns2 ethtool -X "$NIC_2" hfunc xor
stop_host
ns_delete ns1 ns2 || fail "deleting the namespaces"

echo "== RSS with a table under the spec's minimum (device net0)"
dmesg -c >/dev/null
MAX=2
serve_net_pair --queues 2 --rss --misbehave rss-small-table
expect_log "the driver's reason" "ignoring RSS: a key of 40 bytes and a table of 64 entries"
small=1
[ "$(net_pair_device 1)" = net0 ] || small=2
expect_fail "ethtool -x on the NIC that took no RSS" eval "in_ns ns$small ethtool -x \$NIC_$small"
eval "in_ns ns$((3 - small)) ethtool -x \$NIC_$((3 - small))" >/dev/null ||
	fail "ethtool -x on the NIC whose device offers a full table"
echo "ok: ethtool -x on the NIC whose device offers a full table"
expect_pairs 2
ns_reach 1
ns_ping_count 1 20 -i 0.05
stop_host
ns_delete ns1 ns2 || fail "deleting the namespaces"
expect_eq "interfaces of virtio4_net left" 0 "$(our_interfaces | wc -l)"
rmmod virtio4_net && rmmod virtio4_copy || fail "unloading virtio4_net, virtio4_copy"
kmemleak_check
