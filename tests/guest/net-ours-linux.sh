# SPDX-License-Identifier: GPL-2.0
# Two guests across a wire, guest 0 on our driver, guest 1 on Linux's virtio_net:
# 500 pings at 10 ms with no loss each way, full-size and jumbo frames (the device offers an MTU
# of 9000), a 32 MiB TCP transfer each way (ours to Linux's, then Linux's to ours) whose sha256
# matches on both ends, and iperf3 TCP both ways and UDP.
# kernels: debug
# (Interop runs on the debug kernel, where sanitizers watch; ours-to-ours also runs on stock.)
# guests: 2
# One vCPU each, two in all: it runs beside another test, not alone (make check's time).
# smp: 1
# timeout: 420
# qemu: -device virtio-net-pci,netdev=wire,mac=52:54:00:12:34:5$GUEST,host_mtu=9000
. /tests/lib.sh

[ "$GUEST" = 0 ] && driver=ours || driver=linux
net_e2e $driver both
