# SPDX-License-Identifier: GPL-2.0
# Our network driver under traffic: 100 times link down and up while the peer floods pings,
# then pings still all come back; then rmmod while the peer still sends is clean.
# kernels: debug stock
# guests: 2
# timeout: 400
# qemu: -device virtio-net-pci,netdev=wire,mac=52:54:00:12:34:5$GUEST
. /tests/lib.sh

net_up ours
peer_barrier "$PEER"
if [ "$GUEST" = 1 ]; then
	# The peer floods while guest 0 flaps its link, then checks guest 0 answers again.
	ping -i 0.002 -W 1 -c 3000 "$PEER" >/dev/null 2>&1
	peer_barrier "$PEER"
	ping_count 50 -i 0.02
	peer_barrier "$PEER"
	ping -i 0.002 -W 1 -c 2000 "$PEER" >/dev/null 2>&1
	peer_barrier "$PEER"
	exit 0
fi
for i in $(seq 100); do
	ip link set "$NETDEV" down || fail "down #$i"
	ip link set "$NETDEV" up || fail "up #$i"
done
echo "ok: 100 down/up cycles"
peer_barrier "$PEER"
ping_count 50 -i 0.02
peer_barrier "$PEER"
sleep 1
rmmod virtio4_net || fail "rmmod virtio4_net under traffic"
[ ! -e "/sys/class/net/$NETDEV" ] || fail "$NETDEV still exists after rmmod"
echo "ok: rmmod under traffic"
modprobe virtio4_net || fail "reloading virtio4_net"
wait_for "/sys/class/net/$NETDEV"
ip addr add "$ME/16" dev "$NETDEV" && ip link set "$NETDEV" up || fail "reconfiguring"
peer_barrier "$PEER"
