# SPDX-License-Identifier: GPL-2.0
# The control queue against QEMU's virtio-net device, which offers CTRL_VQ, CTRL_RX, CTRL_VLAN,
# CTRL_MAC_ADDR and GUEST_ANNOUNCE and filters what it receives as the driver tells it: our NIC
# beside a peer NIC on Linux's virtio_net on one QEMU hub (the peer in namespace "peer"). Each
# filter is shown both ways, so that a command not sent, or not carried out, fails a check:
# - unicast: of 50 frames from the peer to a foreign MAC none reaches our NIC (its rx_packets),
#   until promiscuous mode is on: then all do;
# - multicast: of 50 frames to a group our NIC has not joined none reaches it; once it joins
#   ("ip maddr add": the MAC table) all do; with all-multicast on, so do frames to another group,
#   and none once it is off again; none once the group is left ("ip maddr del");
# - VLAN: pings over VLAN 10, which both sides have, all come back; once our NIC deletes it,
#   none of 50 frames on VLAN 10 reaches it; of 50 frames the peer sends on VLAN 20 none
#   reaches our NIC until it has VLAN 20 too (then the pings come back);
# - MAC: our address changes (CTRL_MAC_ADDR) and the peer's pings still come back, its
#   neighbour entry holding the new address (the device would drop them at the old one);
# - announce: QMP announce-self makes the device ask (VIRTIO_NET_S_ANNOUNCE); our gratuitous ARPs
#   correct the peer's stale neighbour entry for our second address, and the driver
#   acknowledges (one in ethtool -S announces).
# No control command fails (ctrl_errors 0), and everything goes away with the module.
# kernels: debug stock
# timeout: 240
# qemu: -netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1,mac=52:54:00:00:43:01,addr=04.0
# qemu: -netdev hubport,id=n2,hubid=0 -device virtio-net-pci,netdev=n2,mac=52:54:00:00:43:02,addr=05.0
# host: ../qemu/wait-console.sh 0 announce 300 && ../qemu/qmp.py "$QMP0" announce-self '{"initial": 50, "max": 550, "rounds": 1, "step": 100}'
. /tests/lib.sh

kmemleak_start
[ -d /sys/module/8021q ] || modprobe 8021q || fail "loading 8021q"
net_up_beside_linux
for bit in 17:CTRL_VQ 18:CTRL_RX 19:CTRL_VLAN 21:GUEST_ANNOUNCE 23:CTRL_MAC_ADDR; do
	expect_eq "negotiated ${bit#*:}" 1 "$(feature_bit virtio4.0 ${bit%:*})"
done

# filters_sent: wait until the receive-mode work has sent what the last change asked for (the
# three commands: promiscuous, all-multicast, MAC tables) since CTRL was read.
filters_sent() {
	for _ in $(seq 50); do
		[ "$(stat_of ctrl_commands)" -ge $((CTRL + 3)) ] && return 0
		sleep 0.1
	done
	fail "the receive mode was not sent within 5 s (ctrl_commands $(stat_of ctrl_commands), was $CTRL)"
}

# set_filter COMMAND...: run COMMAND (a change of our NIC's filters) and wait until sent.
set_filter() {
	CTRL=$(stat_of ctrl_commands)
	"$@" || fail "$*"
	filters_sent
}

# received: the packets our NIC has passed up (its one receive queue's, read from sysfs: an
# ethtool start costs 0.4-1.5 s on the debug kernel).
received() {
	local n
	read -r n </sys/class/net/"$NETDEV"/statistics/rx_packets
	echo "$n"
}

# reaching COUNT ADDRESS: how many of COUNT frames the peer sends to ADDRESS (pings at 10 ms,
# none of them answered: ping stops 1 s after the last) reach our NIC.
reaching() {
	local before
	before=$(received)
	in_ns peer ping -c "$1" -i 0.01 -W 1 "$2" >/dev/null 2>&1 || true
	sleep 0.3
	echo $(($(received) - before))
}

# expect_reaching WHAT COUNT OP VALUE ADDRESS: of COUNT frames to ADDRESS, the number that
# reach us compares so with VALUE (OP VALUE: -eq 0, or -ge COUNT).
expect_reaching() {
	local n
	n=$(reaching "$2" "$5")
	[ "$n" "$3" "$4" ] || fail "$1: $n of $2 frames reached our NIC (expected $3 $4)"
	echo "ok: $1: $n of $2 frames reached our NIC"
}

# No ARP between the two from now on (a neighbour probe would reach our NIC as unicast).
mac=$(cat /sys/class/net/"$NETDEV"/address)
peer_mac=$($IP netns exec peer cat /sys/class/net/"$PEER_DEV"/address)
$IP -n peer neigh replace "$ME" lladdr "$mac" dev "$PEER_DEV" nud permanent &&
	$IP neigh replace "$PEER" lladdr "$peer_mac" dev "$NETDEV" nud permanent ||
	fail "permanent neighbour entries"

# Unicast to a foreign MAC.
$IP -n peer neigh replace 169.254.10.99 lladdr 02:00:00:00:99:99 dev "$PEER_DEV" nud permanent ||
	fail "a neighbour entry for the foreign MAC"
expect_reaching "to a foreign MAC" 50 -eq 0 169.254.10.99
set_filter $IP link set "$NETDEV" promisc on
expect_reaching "to a foreign MAC in promiscuous mode" 50 -ge 50 169.254.10.99
set_filter $IP link set "$NETDEV" promisc off
expect_reaching "to a foreign MAC, promiscuous mode off again" 50 -eq 0 169.254.10.99

# Multicast: 224.1.2.3 is 01:00:5e:01:02:03 on the wire, 224.1.2.4 is 01:00:5e:01:02:04.
$IP -n peer route add 224.0.0.0/4 dev "$PEER_DEV" || fail "a multicast route in the peer"
expect_reaching "to a group not joined" 50 -eq 0 224.1.2.3
set_filter $IP maddr add 01:00:5e:01:02:03 dev "$NETDEV"
expect_reaching "to the group joined" 50 -ge 50 224.1.2.3
expect_reaching "to another group" 50 -eq 0 224.1.2.4
set_filter $IP link set "$NETDEV" allmulticast on
expect_reaching "to another group with all-multicast on" 50 -ge 50 224.1.2.4
set_filter $IP link set "$NETDEV" allmulticast off
expect_reaching "to another group, all-multicast off again" 50 -eq 0 224.1.2.4
set_filter $IP maddr del 01:00:5e:01:02:03 dev "$NETDEV"
expect_reaching "to the group left" 50 -eq 0 224.1.2.3

# VLANs: 10 on both sides, 20 on the peer's only (its neighbour entry for us set by hand: no
# ARP crosses a filtered VLAN).
{
	echo "link add link $PEER_DEV name v10 type vlan id 10"
	echo "addr add 169.254.110.2/24 dev v10"
	echo "link set v10 up"
	echo "link add link $PEER_DEV name v20 type vlan id 20"
	echo "addr add 169.254.120.2/24 dev v20"
	echo "link set v20 up"
	echo "neigh replace 169.254.120.1 lladdr $mac dev v20 nud permanent"
} | $IP -n peer -batch - || fail "VLANs 10 and 20 in the peer"
printf 'link add link %s name v10 type vlan id 10\naddr add 169.254.110.1/24 dev v10\nlink set v10 up\n' \
	"$NETDEV" | $IP -batch - || fail "VLAN 10 on our NIC"
for _ in $(seq 30); do
	ping -c 1 -W 1 169.254.110.2 >/dev/null 2>&1 && break
done
expect_eq "answers to 20 pings over VLAN 10" 20 "$(ping -c 20 -i 0.01 169.254.110.2 2>&1 | answers)"
$IP link del v10 || fail "deleting our VLAN 10"
expect_reaching "on VLAN 10, once our NIC deleted it" 50 -eq 0 169.254.110.1
expect_reaching "on VLAN 20, which our NIC does not have" 50 -eq 0 169.254.120.1
printf 'link add link %s name v20 type vlan id 20\naddr add 169.254.120.1/24 dev v20\nlink set v20 up\n' \
	"$NETDEV" | $IP -batch - || fail "VLAN 20 on our NIC"
expect_eq "answers to 20 pings from the peer over VLAN 20" 20 \
	"$(in_ns peer ping -c 20 -i 0.01 -W 2 169.254.120.1 2>&1 | answers)"
$IP link del v20 || fail "deleting our VLAN 20"

# A new MAC address.
ip link set dev "$NETDEV" address 02:00:00:00:43:99 || fail "changing our MAC address"
$IP -n peer neigh del "$ME" dev "$PEER_DEV" || fail "deleting the peer's neighbour entry for us"
peer_ping_count 20 -i 0.01
expect_eq "the peer's neighbour entry for us" 02:00:00:00:43:99 \
	"$($IP -n peer neigh show "$ME" dev "$PEER_DEV" | awk '{ print $3 }')"

# Announce: a second address of ours, in the peer's table with a wrong MAC (stale, so that an
# ARP may correct it). Only a gratuitous ARP, sent for each of our addresses, names it: an ARP
# our NIC sends to resolve something gives its first address (a frame of ours corrected the
# peer's entry for that one in a run where the driver sent no announcement).
ip addr add 169.254.10.51/16 dev "$NETDEV" || fail "a second address"
$IP -n peer neigh replace 169.254.10.51 lladdr 02:00:00:00:77:77 dev "$PEER_DEV" nud stale ||
	fail "a wrong neighbour entry for our second address in the peer"
host_step announce
for _ in $(seq 100); do
	[ "$(stat_of announces)" -ge 1 ] && break
	sleep 0.1
done
expect_eq "announcements the device asked for" 1 "$(stat_of announces)"
for _ in $(seq 50); do
	$IP -n peer neigh show 169.254.10.51 dev "$PEER_DEV" | grep -q 02:00:00:00:43:99 && break
	sleep 0.1
done
expect_eq "the peer's neighbour entry for our second address after the announcement" \
	02:00:00:00:43:99 \
	"$($IP -n peer neigh show 169.254.10.51 dev "$PEER_DEV" | awk '{ print $3 }')"

expect_eq "control commands that failed" 0 "$(stat_of ctrl_errors)"
echo "ok: $(stat_of ctrl_commands) control commands carried out"
linux_peer_down
rmmod virtio4_net || fail "unloading virtio4_net"
kmemleak_check
