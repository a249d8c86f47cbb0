# SPDX-License-Identifier: GPL-2.0
# Network benchmark guests: two guests joined by a socket netdev, both on our driver (side
# "ours"), both on Linux's virtio_net (side "linux"), and both on Linux's again (side "again":
# the A/A noise control, again/linux), rebinding the NIC between them; the order of the three
# rotates from round to round. One guest measures iperf3 TCP both ways, UDP 64-byte packets per
# second and ping round trips while the other serves; they swap these roles every other round.
# kernels: stock
# guests: 2
# pin-guests: under TCG each guest keeps a host CPU busy; never both on one CPU
# timeout: 7200
# qemu: -device virtio-net-pci,netdev=wire,addr=03.0,mac=52:54:00:12:34:5$GUEST
# qemu: -serial file:$WORK/bench$GUEST.out
. /tests/bench-lib.sh

# use DRIVER: bind the NIC to DRIVER (virtio4-pci or virtio-pci) afresh, address it, wait for
# the peer.
use() {
	local dev=/sys/bus/pci/devices/0000:00:03.0

	[ -e "$dev/driver" ] && echo 0000:00:03.0 >"$dev/driver/unbind"
	bind_pci 03.0 "$1"
	for _ in $(seq 100); do
		NETDEV=$(ls /sys/bus/pci/devices/0000:00:03.0/virtio*/net 2>/dev/null | head -n 1)
		[ -n "$NETDEV" ] && break
		sleep 0.1
	done
	[ -n "$NETDEV" ] || fail "no interface on 00:03.0"
	net_address "$NETDEV"
}

# iperf_run ROUND SIDE NAME ARGS...: one iperf3 measurement from this guest, emitted with its JSON.
iperf_run() {
	local round=$1 side=$2 name=$3
	shift 3
	for _ in $(seq 50); do
		iperf3 -c "$PEER" -p 5201 -t "$RUNTIME" -J "$@" >/tmp/iperf.json 2>&1 && break
		sleep 0.2
	done
	grep -q '"end"' /tmp/iperf.json || fail "iperf3 $name: $(tail -n 3 /tmp/iperf.json)"
	emit "{\"bench\":\"net\",\"round\":$round,\"side\":\"$side\",\"job\":\"$name\",\"iperf\":$(tr -d '\n' </tmp/iperf.json)}"
}

# measure ROUND SIDE: this guest measures; SIDE names the result.
measure() {
	local round=$1 side=$2 rtt
	iperf_run "$round" "$side" tcp-send
	iperf_run "$round" "$side" tcp-receive -R
	iperf_run "$round" "$side" udp-64 -u -l 64 -b 0
	rtt=$(ping -c 200 -i 0.01 "$PEER" | sed -n 's|.*min/avg/max = [0-9.]*/\([0-9.]*\)/.*|\1|p')
	[ -n "$rtt" ] || fail "ping"
	emit "{\"bench\":\"net\",\"round\":$round,\"side\":\"$side\",\"job\":\"ping\",\"metric\":\"RTT us\",\"value\":$(awk -v r="$rtt" 'BEGIN { print r * 1000 }'),\"higher_is_better\":false}"
	echo "round $round $side: done"
}

modprobe virtio_pci && modprobe virtio_net && modprobe virtio4_pci && modprobe virtio4_net ||
	fail "loading the drivers"
for round in $(seq "$ROUNDS"); do
	# The measuring guest: 0 in odd rounds, 1 in even ones.
	measurer=$(((round + 1) % 2))
	for side in $(side_order "$round"); do
		driver=virtio-pci
		[ "$side" = ours ] && driver=virtio4-pci
		use $driver
		peer_barrier "$PEER"
		if [ "$GUEST" != "$measurer" ]; then
			iperf3 -s -p 5201 -D || fail "iperf3 server"
			peer_barrier "$PEER"
			peer_barrier "$PEER"
			killall iperf3
		else
			peer_barrier "$PEER"
			measure "$round" "$side"
			peer_barrier "$PEER"
		fi
	done
done
echo "bench: done"
