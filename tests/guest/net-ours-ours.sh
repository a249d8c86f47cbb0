# SPDX-License-Identifier: GPL-2.0
# Two guests across a wire, guest 0 on our driver, guest 1 on our driver:
# 500 pings at 10 ms with no loss, full-size and jumbo frames (the device offers an MTU of
# 9000), a 256 MiB TCP transfer (32 MiB on the slower debug kernel) whose sha256 matches on
# both ends, iperf3 TCP both ways and UDP; then ip -s link shows the packet counts ethtool -S does.
# kernels: debug stock
# guests: 2
# One vCPU each, two in all: it runs beside another test, not alone (make check's time).
# smp: 1
# mmio: modern legacy
# timeout: 420
# qemu: -device virtio-net-pci,netdev=wire,mac=52:54:00:12:34:5$GUEST,host_mtu=9000
. /tests/lib.sh

[ "$GUEST" = 0 ] && driver=ours || driver=ours
net_e2e $driver

# ip -s link counts what ethtool -S counts (read between two ethtool reads: packets may still be
# counted meanwhile), and the traffic above was counted.
for dir in tx rx; do
	before=$(stat_of ${dir}0_packets)
	shown=$($IP -s link show "$NETDEV" |
		awk -v d="$(echo $dir | tr a-z A-Z):" '$1 == d { getline; print $2; exit }')
	after=$(stat_of ${dir}0_packets)
	[ -n "$shown" ] && [ "$shown" -ge 1000 ] && [ "$shown" -ge "$before" ] &&
		[ "$shown" -le "$after" ] ||
		fail "ip -s link $dir packets '$shown', ethtool -S ${dir}0_packets $before..$after"
	echo "ok: ip -s link $dir packets $shown = ethtool -S ${dir}0_packets"
done
