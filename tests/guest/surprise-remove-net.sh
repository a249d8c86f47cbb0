# SPDX-License-Identifier: GPL-2.0
# Surprise removal of a NIC: QMP device_del of guest 0's NIC (our driver) during an iperf3 run
# to guest 1. The interface goes away within 10 s of the removal request (TCP keeps its
# connection, so iperf3 is then killed and must end within 5 s: nothing is stuck in the
# kernel); nothing crashes; a NIC added afterwards with device_add (same wire) reaches the
# peer again.
# kernels: debug stock
# guests: 2
# timeout: 300
# qemu: -device virtio-net-pci,netdev=wire,mac=52:54:00:12:34:5$GUEST,id=nic
# host: ../qemu/wait-console.sh 0 remove 180 && ../qemu/qmp.py "$QMP0" device_del '{"id": "nic"}' && ../qemu/wait-console.sh 0 add 120 && ../qemu/qmp.py "$QMP0" device_add '{"driver": "virtio-net-pci", "netdev": "wire", "mac": "52:54:00:12:34:60", "id": "nic2"}'
. /tests/lib.sh

net_up ours
if [ "$GUEST" = 1 ]; then
	# Serve (listening before the first barrier) until guest 0's first NIC is gone, then
	# wait for its second one.
	iperf3 -s -1 -p 5201 >/tmp/iperf.log 2>&1 &
	sleep 1
	peer_barrier "$PEER"
	peer_barrier "$PEER"
	kill %1 2>/dev/null || true
	echo "ok: guest 0 came back"
	exit 0
fi
peer_barrier "$PEER"
iperf3 -c "$PEER" -p 5201 -t 120 >/tmp/iperf.log 2>&1 &
iperf=$!
sleep 5
kill -0 $iperf || fail "iperf3 ended before the removal: $(tail -n 3 /tmp/iperf.log)"
old=$NETDEV
host_step remove
asked=$(date +%s)
for _ in $(seq 100); do
	[ -e "/sys/class/net/$old" ] || break
	sleep 0.1
done
[ ! -e "/sys/class/net/$old" ] || fail "$old is still there"
took=$(($(date +%s) - asked))
echo "ok: $old went away $took s after the removal request"
# TCP does not abort a connection whose route went away: iperf3 just stops making progress.
# It must not be stuck in the kernel: it ends as soon as it is told to.
kill $iperf
killed=$(date +%s)
wait $iperf || true
took=$(($(date +%s) - killed))
echo "ok: iperf3 ended $took s after it was killed: $(tail -n 1 /tmp/iperf.log)"
[ "$took" -le 5 ] || fail "iperf3 took $took s to end"

host_step add
for _ in $(seq 300); do
	NETDEV=$(our_interfaces | head -n 1)
	[ -n "$NETDEV" ] && break
	sleep 0.1
done
[ -n "$NETDEV" ] || fail "no NIC of virtio4_net after device_add"
echo "ok: $NETDEV is the new NIC, on virtio4_net"
net_address "$NETDEV"
ping_count 20 -i 0.05
peer_barrier "$PEER"
