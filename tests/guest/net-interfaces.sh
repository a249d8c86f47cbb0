# SPDX-License-Identifier: GPL-2.0
# What users see of our network driver: ethtool -i, -g, -k and -S values, the MAC and MTU from
# the device, link status; and bad input from userspace fails cleanly: an MTU above the
# device's maximum and ring sizes the device does not have are refused with EINVAL.
# (ip -s link against ethtool -S, with traffic: net-ours-ours.)
# kernels: debug stock
# timeout: 120
# qemu: -netdev hubport,id=wire,hubid=0 -device virtio-net-pci,netdev=wire,mac=52:54:00:ab:cd:ef,host_mtu=4000
. /tests/lib.sh

modprobe virtio4_pci && modprobe virtio4_net || fail "loading virtio4_net"
wait_for /sys/class/net/eth0
NETDEV=eth0
ip link set eth0 up || fail "link up"
expect_eq "MAC from the device" 52:54:00:ab:cd:ef "$(cat /sys/class/net/eth0/address)"
expect_eq "MTU from the device" 4000 "$(cat /sys/class/net/eth0/mtu)"
expect_eq "carrier" 1 "$(cat /sys/class/net/eth0/carrier)"
expect_eq "ethtool -i driver" virtio4_net "$(ethtool -i eth0 | sed -n 's/^driver: //p')"
expect_eq "ethtool -i bus-info" virtio4.0 "$(ethtool -i eth0 | sed -n 's/^bus-info: //p')"
rx_max=$(ethtool -g eth0 | awk '/^RX:/ { print $2; exit }')
[ "$rx_max" -ge 64 ] || fail "ethtool -g RX maximum '$rx_max'"
echo "ok: ethtool -g RX maximum $rx_max"
# Offloads follow the negotiated features (QEMU offers them only to backends with
# virtio-net headers, which socket and hub netdevs are not).
features=$(cat /sys/bus/virtio4/devices/virtio4.0/features)
onoff() { [ $(($features >> $1 & 1)) = 1 ] && echo on || echo off; }
expect_eq "ethtool -k tx-checksumming (F_CSUM)" "$(onoff 0)" \
	"$(ethtool -k eth0 | sed -n 's/^tx-checksumming: \([a-z]*\).*/\1/p')"
expect_eq "ethtool -k rx-checksumming (F_GUEST_CSUM)" "$(onoff 1)" \
	"$(ethtool -k eth0 | sed -n 's/^rx-checksumming: \([a-z]*\).*/\1/p')"
expect_eq "ethtool -k tcp-segmentation-offload (F_HOST_TSO4)" "$(onoff 11)" \
	"$(ethtool -k eth0 | sed -n 's/^tcp-segmentation-offload: \([a-z]*\).*/\1/p')"
expect_eq "F_MRG_RXBUF negotiated" on "$(onoff 15)"
for s in rx0_packets rx0_alloc_failures rx0_kicks rx0_interrupts tx0_packets tx0_bytes tx0_kicks; do
	[ -n "$(stat_of $s)" ] || fail "ethtool -S has no $s"
done
[ "$(stat_of rx0_kicks)" -ge 1 ] || fail "the receive ring was never kicked"
echo "ok: ethtool -S counters present"

expect_fail "MTU above the device's 4000" ip link set eth0 mtu 4001
expect_eq "MTU after the refused change" 4000 "$(cat /sys/class/net/eth0/mtu)"
ip link set eth0 mtu 1500 || fail "MTU 1500"
expect_fail "RX ring above the maximum" ethtool -G eth0 rx $((rx_max * 2))
expect_fail "RX ring of another size" ethtool -G eth0 rx $((rx_max / 2))
expect_eq "RX ring after the refused changes" "$rx_max" \
	"$(ethtool -g eth0 | awk '/^RX:/ { n++; if (n == 2) print $2 }')"
