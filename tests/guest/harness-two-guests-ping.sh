# SPDX-License-Identifier: GPL-2.0
# The harness joins two guests by a wire (a socket netdev on 127.0.0.1): each sees the
# other over Linux's virtio_net at a link-local address, 20 pings with no loss.
# guests: 2
# timeout: 120
# qemu: -device virtio-net-pci,netdev=wire,mac=52:54:00:12:34:5$GUEST
. /tests/lib.sh

modprobe virtio_pci && modprobe virtio_net || fail "loading Linux's virtio_net"
for _ in $(seq 50); do
	dev=$(ls /sys/class/net | grep -v '^lo$' | head -n 1)
	[ -n "$dev" ] && break
	sleep 0.1
done
[ -n "$dev" ] || fail "no network interface appeared"
me=169.254.10.$((GUEST + 1))
peer=169.254.10.$((2 - GUEST))
ip addr add "$me/16" dev "$dev" && ip link set "$dev" up || fail "configuring $dev"
echo "ok: $dev is $me, peer $peer"
# Wait for the peer to come up, then count.
for _ in $(seq 60); do
	ping -c 1 -W 1 "$peer" >/dev/null 2>&1 && break
done
out=$(ping -c 20 -i 0.2 -W 2 "$peer")
echo "$out" | tail -n 2
received=$(echo "$out" | sed -n 's/.* \([0-9]*\) packets received.*/\1/p')
expect_eq "pings received from $peer" 20 "$received"
peer_barrier "$peer"
