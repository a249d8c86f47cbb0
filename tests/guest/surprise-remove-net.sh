# SPDX-License-Identifier: GPL-2.0
# Surprise removal of a NIC: QMP device_del of our NIC during an iperf3 run to a peer NIC on
# Linux's virtio_net (one QEMU hub; the peer in its own network namespace). The interface goes
# away within 10 s of the removal request, while iperf3 is sending (its packets counted), and
# its device leaves our bus (TCP keeps its connection, so iperf3 is then killed and must end
# within 5 s: nothing is stuck in the kernel); nothing crashes; a NIC added afterwards with
# device_add (same hub port) comes up on our driver and reaches the peer; the modules unload and
# nothing leaks.
# kernels: debug stock
# timeout: 300
# qemu: -netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1,mac=52:54:00:00:43:01,addr=04.0,id=nic
# qemu: -netdev hubport,id=n2,hubid=0 -device virtio-net-pci,netdev=n2,mac=52:54:00:00:43:02,addr=05.0
# pci-hotplug: the host command plugs and unplugs a device (QMP device_add, device_del)
# host: ../qemu/wait-console.sh 0 remove 180 && ../qemu/qmp.py "$QMP0" device_del '{"id": "nic"}' && ../qemu/wait-console.sh 0 add 120 && ../qemu/qmp.py "$QMP0" device_add '{"driver": "virtio-net-pci", "netdev": "n1", "mac": "52:54:00:00:43:03", "addr": "06.0", "id": "nic2"}'
. /tests/lib.sh

kmemleak_start
net_up_beside_linux
in_ns peer iperf3 -s -1 -p 5201 >/tmp/iperf-server.log 2>&1 &
server=$!
sleep 1
iperf3 -c "$PEER" -p 5201 -t 120 >/tmp/iperf.log 2>&1 &
iperf=$!
sleep 1
read -r sent </sys/class/net/"$NETDEV"/statistics/tx_packets
sleep 4
kill -0 $iperf || fail "iperf3 ended before the removal: $(tail -n 3 /tmp/iperf.log)"
# The removal must come in the middle of traffic: iperf3 sending, not stalled.
read -r now </sys/class/net/"$NETDEV"/statistics/tx_packets
[ $((now - sent)) -gt 100 ] || fail "iperf3 sent $((now - sent)) packets in 4 s before the removal"
echo "ok: iperf3 sent $((now - sent)) packets in the 4 s before the removal"
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
for _ in $(seq 50); do
	[ -z "$(ls /sys/bus/virtio4/devices)" ] && break
	sleep 0.1
done
expect_eq "devices left on the virtio4 bus after the removal" 0 "$(ls /sys/bus/virtio4/devices | wc -l)"
# TCP does not abort a connection whose route went away: iperf3 just stops making progress.
# It must not be stuck in the kernel: it ends as soon as it is told to.
kill $iperf
killed=$(date +%s)
wait $iperf || true
took=$(($(date +%s) - killed))
echo "ok: iperf3 ended $took s after it was killed: $(tail -n 1 /tmp/iperf.log)"
[ "$took" -le 5 ] || fail "iperf3 took $took s to end"
kill $server 2>/dev/null || true

# The new NIC (00:06.0) is probed at once by our virtio4_pci or Linux's virtio_pci (loaded for
# the peer), whichever the PCI core tries first: steered to ours with driver_override.
host_step add
new=/sys/bus/pci/devices/0000:00:06.0
wait_for $new 300
echo virtio4-pci >$new/driver_override
for _ in $(seq 100); do
	bound=$(basename "$(readlink $new/driver 2>/dev/null)")
	[ "$bound" = virtio4-pci ] && break
	[ -n "$bound" ] && echo 0000:00:06.0 >$new/driver/unbind
	echo 0000:00:06.0 >/sys/bus/pci/drivers_probe 2>/dev/null || true
	sleep 0.1
done
expect_eq "driver of 00:06.0" virtio4-pci "$bound"
our_new_interface device_add 300
ping_count 20 -i 0.05
linux_peer_down
rmmod virtio4_net virtio4_pci || fail "unloading virtio4_net, virtio4_pci"
kmemleak_check
