# SPDX-License-Identifier: GPL-2.0
# Our network driver under traffic, beside a peer NIC on Linux's virtio_net (one QEMU hub; the
# peer in its own network namespace): 100 times link down and up while the peer floods pings,
# then pings all come back both ways; then rmmod while the peer still floods is clean, and the
# reloaded driver's new interface reaches the peer. Our NIC's queue interrupts are hinted to its
# one pair's CPUs, every CPU (/proc/irq/N/affinity_hint), and the hints go with the interrupts
# at rmmod (free_irq WARNs on one left behind).
# kernels: debug stock
# timeout: 300
# qemu: -netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1,mac=52:54:00:00:42:01,addr=04.0
# qemu: -netdev hubport,id=n2,hubid=0 -device virtio-net-pci,netdev=n2,mac=52:54:00:00:42:02,addr=05.0
. /tests/lib.sh

# peer_flood COUNT: the peer pings us COUNT times every 2 ms, in the background (sets FLOOD).
peer_flood() {
	in_ns peer ping -i 0.002 -W 1 -c "$1" "$ME" >/dev/null 2>&1 &
	FLOOD=$!
}

net_up_beside_linux
dev=$(basename "$(readlink "/sys/class/net/$NETDEV/device")")
for q in rx0 tx0; do
	irq=$(awk -v n="$dev-$q" '$NF == n { sub(":", "", $1); print $1 }' /proc/interrupts)
	[ -n "$irq" ] || fail "no interrupt named $dev-$q"
	expect_eq "CPUs hinted for $dev-$q's interrupt (a mask)" \
		$(((1 << $(grep -c ^processor /proc/cpuinfo)) - 1)) $((0x$(cat /proc/irq/$irq/affinity_hint)))
done
peer_flood 3000
for i in $(seq 100); do
	ip link set "$NETDEV" down || fail "down #$i"
	ip link set "$NETDEV" up || fail "up #$i"
done
echo "ok: 100 down/up cycles"
wait $FLOOD || true	# pings sent while the link was down are lost
for _ in $(seq 30); do	# the link may have come up just now
	ping -c 1 -W 1 "$PEER" >/dev/null 2>&1 && break
done
ping_count 50 -i 0.02
peer_ping_count 50 -i 0.02

peer_flood 100000	# until it is killed
sleep 1
rmmod virtio4_net || fail "rmmod virtio4_net under traffic"
[ ! -e "/sys/class/net/$NETDEV" ] || fail "$NETDEV still exists after rmmod"
kill -0 $FLOOD 2>/dev/null || fail "the peer's flood ended before the rmmod"
echo "ok: rmmod under traffic"
kill $FLOOD
wait $FLOOD || true

modprobe virtio4_net || fail "reloading virtio4_net"
our_new_interface "reloading it"
ping_count 20 -i 0.05
linux_peer_down
