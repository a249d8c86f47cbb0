# SPDX-License-Identifier: GPL-2.0
# Network benchmark guests: two guests joined by a socket netdev, both on our driver (side
# "ours") or both on Linux's virtio_net, rebinding the NIC between rounds. Linux runs twice per
# round ("linux", which is also "aa0", and "aa1"): the A/A noise control. Guest 0 measures
# iperf3 TCP both ways, UDP 64-byte packets per second, and ping round trips; guest 1 serves.
# kernels: stock
# guests: 2
# timeout: 7200
# qemu: -device virtio-net-pci,netdev=wire,addr=03.0,mac=52:54:00:12:34:5$GUEST
# qemu: -serial file:$WORK/bench$GUEST.out
. /tests/bench-lib.sh

# use DRIVER: bind the NIC to DRIVER (virtio4-pci or virtio-pci), address it, wait for the peer.
use() {
	bind_pci 03.0 "$1"
	for _ in $(seq 100); do
		NETDEV=$(ls /sys/bus/pci/devices/0000:00:03.0/virtio*/net 2>/dev/null | head -n 1)
		[ -n "$NETDEV" ] && break
		sleep 0.1
	done
	[ -n "$NETDEV" ] || fail "no interface on 00:03.0"
	net_address "$NETDEV"
}

# iperf_run ROUND SIDE NAME ARGS...: one iperf3 measurement from guest 0, emitted with its JSON.
iperf_run() {
	local round=$1 side=$2 name=$3 s
	shift 3
	for _ in $(seq 50); do
		iperf3 -c "$PEER" -p 5201 -t "$RUNTIME" -J "$@" >/tmp/iperf.json 2>&1 && break
		sleep 0.2
	done
	grep -q '"end"' /tmp/iperf.json || fail "iperf3 $name: $(tail -n 3 /tmp/iperf.json)"
	for s in $side; do
		emit "{\"bench\":\"net\",\"round\":$round,\"side\":\"$s\",\"job\":\"$name\",\"iperf\":$(tr -d '\n' </tmp/iperf.json)}"
	done
}

# measure ROUND SIDES: guest 0 measures; SIDES names the result (e.g. "linux aa0").
measure() {
	local round=$1 sides=$2 rtt s
	iperf_run "$round" "$sides" tcp-send
	iperf_run "$round" "$sides" tcp-receive -R
	iperf_run "$round" "$sides" udp-64 -u -l 64 -b 0
	rtt=$(ping -c 200 -i 0.01 "$PEER" | sed -n 's|.*min/avg/max = [0-9.]*/\([0-9.]*\)/.*|\1|p')
	[ -n "$rtt" ] || fail "ping"
	for s in $sides; do
		emit "{\"bench\":\"net\",\"round\":$round,\"side\":\"$s\",\"job\":\"ping\",\"metric\":\"RTT us\",\"value\":$(awk -v r="$rtt" 'BEGIN { print r * 1000 }'),\"higher_is_better\":false}"
	done
	echo "round $round $sides: done"
}

modprobe virtio_pci && modprobe virtio_net && modprobe virtio4_pci && modprobe virtio4_net ||
	fail "loading the drivers"
for round in $(seq "$ROUNDS"); do
	if [ $((round % 2)) = 1 ]; then
		order="ours:virtio4-pci linux_aa0:virtio-pci aa1:virtio-pci"
	else
		order="linux_aa0:virtio-pci ours:virtio4-pci aa1:virtio-pci"
	fi
	for step in $order; do
		use "${step#*:}"
		peer_barrier "$PEER"
		if [ "$GUEST" = 1 ]; then
			iperf3 -s -p 5201 -D || fail "iperf3 server"
			peer_barrier "$PEER"
			peer_barrier "$PEER"
			killall iperf3
		else
			peer_barrier "$PEER"
			sides=$(echo "${step%%:*}" | tr '_' ' ')
			measure "$round" "$sides"
			peer_barrier "$PEER"
		fi
	done
done
echo "bench: done"
